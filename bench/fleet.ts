import fs from 'node:fs';
import path from 'node:path';
import { type ManagedChild, startChild } from '../src/stack/child';
import type { ApiClient } from './api';
import { type ThroughputResult, serviceThroughput } from './service';
import type { BenchStack } from './stack';
import { nowMs, runPool, sleep } from './stats';

// The end-to-end phase of `npm run bench:dispatch`: real reference agents (`compute agent`, each a
// process of its own running `true` in a fresh folder per job) take the jobs, instead of the
// bench's own pollers that report a result the moment they hold a job.

const ROOT = path.resolve(__dirname, '..');

export interface FleetResult extends ThroughputResult {
  /** A burst of submits no agent takes, sent while the agents work: the completion rate during it and outside it. */
  burst?: { jobs: number; seconds: number; submitsPerSecond: number; completionsDuring: number; completionsOutside: number };
}

export async function fleetThroughput(o: {
  stack: BenchStack;
  api: ApiClient;
  agents: number;
  slots: number;
  jobs: number;
  inFlight: number;
  /** Once a third of the jobs are done, submit this many jobs no agent takes, `concurrency` at a time; they are cancelled afterwards. */
  burst?: { jobs: number; concurrency: number };
}): Promise<FleetResult> {
  const dir = fs.mkdtempSync(path.join(o.stack.dataDir, 'fleet-'));
  const children: ManagedChild[] = [];
  try {
    for (let i = 0; i < o.agents; i++) {
      const logFile = path.join(dir, `agent-${i}.log`);
      children.push(
        startChild({
          command: process.execPath,
          args: [path.join(ROOT, 'bin/compute.js'), 'agent', '--key', o.stack.userKey, '--api', o.stack.url, '--dir', path.join(dir, `agent-${i}`), '--concurrency', String(o.slots), '--name', `fleet-${i}`],
          cwd: ROOT,
          env: { ...o.stack.vars, LOG_LEVEL: 'info', COMPUTE_CONFIG_DIR: dir },
          logFile,
        }),
      );
      for (let t = 0; !fs.readFileSync(logFile, 'utf8').includes('agent ready'); t++) {
        if (t > 600) throw new Error(`agent ${i} never became ready; see ${logFile}`);
        await sleep(50);
      }
    }
    let burstRun: Promise<{ from: number; to: number; ids: string[] }> | undefined;
    const startBurst = (burst: { jobs: number; concurrency: number }) => {
      const ids: string[] = [];
      const submit = () =>
        o.api.call<{ job_id: string }>('/compute/jobs/submit', { type: 'COMMAND', command: 'true', selector: { queue: 'nobody' } }, o.stack.userKey);
      const from = nowMs();
      return runPool(burst.jobs, burst.concurrency, async () => void ids.push((await submit()).job_id)).then(() => ({ from, to: nowMs(), ids }));
    };
    const result = await serviceThroughput({
      api: o.api,
      databaseUrl: o.stack.databaseUrl,
      userKey: o.stack.userKey,
      nodes: [],
      jobs: o.jobs,
      inFlight: o.inFlight,
      maxJobs: o.slots,
      timeoutMs: 600_000,
      onDone: (done) => {
        if (o.burst && !burstRun && done >= o.jobs / 3) burstRun = startBurst(o.burst);
      },
    });
    if (!o.burst || !burstRun) return result;
    const burst = await burstRun;
    let next = 0;
    await runPool(burst.ids.length, 50, async () => void (await o.api.call('/compute/jobs/cancel', { job_id: burst.ids[next++] }, o.stack.userKey)));
    const sorted = [...result.doneAt].sort((a, b) => a - b);
    const during = sorted.filter((t) => t >= burst.from && t <= burst.to).length;
    // Outside: from the first completion to the last, less the burst.
    const outsideMs = sorted[sorted.length - 1] - sorted[0] - (burst.to - burst.from);
    const seconds = (burst.to - burst.from) / 1000;
    return {
      ...result,
      burst: {
        jobs: burst.ids.length,
        seconds,
        submitsPerSecond: burst.ids.length / seconds,
        completionsDuring: during / seconds,
        completionsOutside: ((sorted.length - during) / outsideMs) * 1000,
      },
    };
  } finally {
    // The first SIGTERM drains an agent: it has nothing left to run by now.
    await Promise.all(children.map((c) => c.stop(15_000)));
  }
}
