import fs from 'node:fs';
import path from 'node:path';
import { type ManagedChild, startChild } from '../src/stack/child';
import type { ApiClient, Assigned } from './api';
import { type ThroughputResult, serviceThroughput } from './service';
import type { BenchStack } from './stack';
import { nowMs, runPool, sleep } from './stats';

// The end-to-end phase of `npm run bench:dispatch`: real reference agents (`compute agent`, each a
// process of its own running `true` in a fresh folder per job) take the jobs, instead of the
// bench's own pollers that report a result the moment they hold a job.

const ROOT = path.resolve(__dirname, '..');

/** Load put on the same API while the agents work, from a third of their jobs done until it ends. */
export interface Disturbance {
  /** What it needs in place before the agents start (so its load begins on time), if anything. */
  prepare?(): Promise<void>;
  /** Runs until `enough()` (checked as it goes) or its own end; says what it did and when its load ran (epoch ms, setup excluded). */
  run(
    enough: () => boolean,
  ): Promise<{ description: string; from: number; to: number; afterwards?: () => Promise<void> }>;
}

export interface FleetResult extends ThroughputResult {
  /** The agents' completions while the disturbance ran and outside it: per second, and counted over how long. */
  disturbed?: {
    description: string;
    seconds: number;
    completionsDuring: number;
    completionsOutside: number;
    during: number;
    outside: number;
    outsideSeconds: number;
  };
}

/** Submits no agent takes, `concurrency` at a time; cancelled afterwards. */
export function submitBurst(api: ApiClient, key: string, jobs: number, concurrency: number): Disturbance {
  return {
    async run() {
      const ids: string[] = [];
      const from = nowMs();
      await runPool(jobs, concurrency, async () => void ids.push(await api.submit(key, { queue: 'nobody' })));
      const to = nowMs();
      return {
        description: `a burst of ${jobs} submits no agent takes (${concurrency} at a time, ${((jobs / (to - from)) * 1000).toFixed(1)}/s)`,
        from,
        to,
        afterwards: async () => {
          let next = 0;
          await runPool(
            ids.length,
            50,
            async () => void (await api.call('/compute/jobs/cancel', { job_id: ids[next++] }, key)),
          );
        },
      };
    },
  };
}

/**
 * A node of the bench's own holding `pushers` jobs (taken before the agents start: behind their
 * jobs, its own would reach it late and shorten the flood) and pushing 1000-line batches to each
 * back to back, until the agents are two thirds done.
 */
export function logFlood(api: ApiClient, key: string, pushers: number): Disturbance {
  let node: Awaited<ReturnType<ApiClient['register']>>;
  const held: Assigned[] = [];
  let pushing = true;
  let beating: Promise<void> = Promise.resolve();
  return {
    async prepare() {
      const tag = `flood-${Date.now()}`;
      // One node holding them all: a node's jobs are what the flood is about, not its count.
      node = await api.register(key, tag, { flood: tag });
      for (let i = 0; i < pushers; i++)
        await api.call('/compute/jobs/submit', { type: 'COMMAND', command: 'true', selector: { flood: tag } }, key);
      while (held.length < pushers) held.push(...(await api.poll(node, pushers - held.length, 10)));
      // Heartbeats naming the held jobs, as an agent sends them: else they count as lost.
      beating = (async () => {
        while (pushing) {
          await api.call(
            '/compute/nodes/heartbeat',
            { nodeId: node.nodeId, runningJobs: held.map((j) => j.job_id) },
            node.nodeKey,
          );
          await sleep(5000);
        }
      })();
    },
    async run(enough) {
      const from = nowMs();
      let lines = 0;
      await Promise.all(
        held.map(async (job) => {
          for (let seq = 1; !enough(); seq += 1000) {
            const batch = Array.from({ length: 1000 }, (_, i) => ({
              seq: seq + i,
              stream: 'stdout',
              line: `flood line ${seq + i} of a job that prints a lot`,
            }));
            await api.call(
              '/compute/nodes/logs',
              { nodeId: node.nodeId, job_id: job.job_id, leaseId: job.leaseId, lines: batch },
              node.nodeKey,
            );
            lines += 1000;
          }
        }),
      );
      const to = nowMs();
      for (const job of held) await api.result(node, job);
      pushing = false;
      await beating;
      return {
        description: `${pushers} jobs pushing 1000-line batches back to back (${Math.round((lines / (to - from)) * 1000)} lines/s)`,
        from,
        to,
      };
    },
  };
}

export async function fleetThroughput(o: {
  stack: BenchStack;
  api: ApiClient;
  agents: number;
  slots: number;
  jobs: number;
  inFlight: number;
  /** Started once a third of the jobs are done; told to stop once two thirds are. */
  disturbance?: Disturbance;
}): Promise<FleetResult> {
  await o.disturbance?.prepare?.();
  const dir = fs.mkdtempSync(path.join(o.stack.dataDir, 'fleet-'));
  const children: ManagedChild[] = [];
  try {
    for (let i = 0; i < o.agents; i++) {
      const logFile = path.join(dir, `agent-${i}.log`);
      children.push(
        startChild({
          command: process.execPath,
          args: [
            path.join(ROOT, 'bin/compute.js'),
            'agent',
            '--key',
            o.stack.userKey,
            '--api',
            o.stack.url,
            '--dir',
            path.join(dir, `agent-${i}`),
            '--concurrency',
            String(o.slots),
            '--name',
            `fleet-${i}`,
          ],
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
    let disturbed: ReturnType<Disturbance['run']> | undefined;
    let done = 0;
    const result = await serviceThroughput({
      api: o.api,
      databaseUrl: o.stack.databaseUrl,
      userKey: o.stack.userKey,
      nodes: [],
      jobs: o.jobs,
      inFlight: o.inFlight,
      maxJobs: o.slots,
      timeoutMs: 600_000,
      onDone: (count) => {
        done = count;
        if (o.disturbance && !disturbed && done >= o.jobs / 3)
          disturbed = o.disturbance.run(() => done >= (2 * o.jobs) / 3);
      },
    });
    if (!disturbed) return result;
    const d = await disturbed;
    await d.afterwards?.();
    const sorted = [...result.doneAt].sort((a, b) => a - b);
    // The disturbance's load, within the span of the agents' completions (it may outlast them).
    const from = Math.max(d.from, sorted[0]);
    const to = Math.min(d.to, sorted[sorted.length - 1]);
    const during = sorted.filter((t) => t >= from && t <= to).length;
    const outsideMs = sorted[sorted.length - 1] - sorted[0] - (to - from);
    const seconds = (to - from) / 1000;
    return {
      ...result,
      disturbed: {
        description: d.description,
        seconds,
        completionsDuring: during / seconds,
        completionsOutside: ((sorted.length - during) / outsideMs) * 1000,
        during,
        outside: sorted.length - during,
        outsideSeconds: outsideMs / 1000,
      },
    };
  } finally {
    // The first SIGTERM drains an agent: it has nothing left to run by now.
    await Promise.all(children.map((c) => c.stop(15_000)));
  }
}
