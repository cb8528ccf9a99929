// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Agent } from '../../src/reference-agent/agent';
import { LogBatcher, type LogLine } from '../../src/reference-agent/log-batcher';
import type { ManagedChild } from '../../src/stack/child';
import { freePort } from '../../src/stack/ports';
import { type ApiProxy, agentPool, agentScratch, type ProxiedCall, waitFor } from '../support/agents';
import { spawnApi } from '../support/api-process';
import { quietLog, testEnv } from '../support/env';
import { inState, newWorkspace, ok, storedLines, waitForJob } from '../support/http';

// The claims of docs/guides/agents-and-cli.md about how the agent sends logs, tested on the real
// stack: the agent is `compute agent` (or, where a test needs a smaller buffer, the same Agent
// class in this process), and whatever it sends goes to a real API. A proxy in front of that API
// records the pushes and, where a claim is about the API being away, cuts connections itself.

interface Push {
  lines: LogLine[];
  at: number;
}
/** The log pushes of one job the API accepted, in order. */
const pushesOf = (proxy: ApiProxy, jobId: string): Push[] =>
  proxy.calls
    .filter((c: ProxiedCall) => c.path === '/api/compute/nodes/logs' && c.status === 200 && c.json().job_id === jobId)
    .map((c) => ({ lines: c.json().lines as LogLine[], at: c.at }));
describe("the agent's logs, as the agents guide says", () => {
  const start = agentPool();
  const { scratch, until, proxy, releaseFile, pidsOf } = agentScratch();
  // An API of its own: a log budget wide enough to keep megabytes, and a long loss window for the
  // jobs it submits, so an agent that cannot reach it for a while keeps its job.
  let ownApi: ManagedChild;
  let ownUrl = '';

  before(async () => {
    const port = await freePort();
    ownUrl = `http://127.0.0.1:${port}`;
    ownApi = await spawnApi(port, { LOG_LIMIT_BYTES: String(64 * 1024 * 1024), AGENT_LOST_AFTER_MS: '60000' });
  });
  after(async () => {
    await ownApi?.stop(2000);
  });

  // That a whole batch goes the moment it is waiting, not at the tick, is the batcher's unit test
  // (test/unit/log-batcher.test.ts): on a loaded machine a wall clock cannot tell it from the tick.
  describe('logs go up in batches of 100 lines, 512 KiB or 200 ms, whichever comes first', () => {
    it('100 waiting lines go at once, never more than 100 in a push, and the API stores every line', async () => {
      const { key } = await newWorkspace();
      const api = await proxy(ownUrl);
      await start({ key, apiUrl: api.url });
      const release = releaseFile();
      const job = await ok(
        '/compute/jobs/submit',
        { type: 'COMMAND', command: `seq 1 650 | sed 's/^/line-/'; ${until(release)}` },
        key,
        ownUrl,
      );
      // The job holds on, so the pushes are the batcher's doing, not the flush at the job's end.
      const pushes = await waitFor('650 lines pushed', () => {
        const got = pushesOf(api, job.job_id);
        return got.flatMap((p) => p.lines).length >= 650 && got;
      });
      fs.writeFileSync(release, '');
      await waitForJob(key, job.job_id, inState('succeeded'), 20_000);

      const sizes = pushes.map((p) => p.lines.length);
      assert.ok(
        sizes.every((s) => s <= 100),
        `no push over 100 lines: ${sizes}`,
      );
      assert.deepEqual(
        pushes.flatMap((p) => p.lines.map((l) => l.seq)),
        Array.from({ length: 650 }, (_, i) => i + 1),
        'each line once, in order',
      );
      const full = pushes.filter((p) => p.lines.length === 100);
      assert.ok(full.length >= 5, `mostly full batches: ${sizes}`);
      assert.deepEqual(
        await storedLines(job.job_id),
        Array.from({ length: 650 }, (_, i) => `line-${i + 1}`),
      );
    });

    it('512 KiB waiting go at once, never more in a push, and the API stores every line', async () => {
      const { key } = await newWorkspace();
      const api = await proxy(ownUrl);
      await start({ key, apiUrl: api.url });
      const release = releaseFile();
      // 65 lines of 50000 bytes: ten make a batch (the eleventh would pass 512 KiB), 100 lines never.
      const big = `s=$(head -c 50000 /dev/zero | tr '\\0' x); i=1; while [ $i -le 65 ]; do echo "big-$i-$s"; i=$((i + 1)); done`;
      const job = await ok(
        '/compute/jobs/submit',
        { type: 'COMMAND', command: `${big}; ${until(release)}` },
        key,
        ownUrl,
      );
      const pushes = await waitFor('65 big lines pushed', () => {
        const got = pushesOf(api, job.job_id);
        return got.flatMap((p) => p.lines).length >= 65 && got;
      });
      fs.writeFileSync(release, '');
      await waitForJob(key, job.job_id, inState('succeeded'), 20_000);

      const bytes = pushes.map((p) => p.lines.reduce((sum, l) => sum + Buffer.byteLength(l.line), 0));
      assert.ok(
        bytes.every((b) => b <= 512 * 1024),
        `no push over 512 KiB: ${bytes}`,
      );
      assert.deepEqual(
        pushes.flatMap((p) => p.lines.map((l) => l.seq)),
        Array.from({ length: 65 }, (_, i) => i + 1),
      );
      const full = pushes.filter((p) => p.lines.length === 10);
      assert.ok(full.length >= 5, `mostly 10-line batches: ${pushes.map((p) => p.lines.length)}`);
      const stored = await testEnv()
        .db('job_logs')
        .where({ job_id: job.job_id, kind: 'line' })
        .orderBy('seq')
        .select(testEnv().db.raw('length(line) as len'), testEnv().db.raw("split_part(line, '-', 2) as i"));
      assert.deepEqual(
        stored.map((r) => [Number(r.i), Number(r.len)]),
        Array.from({ length: 65 }, (_, i) => [i + 1, `big-${i + 1}-`.length + 50_000]),
      );
    });

    it('a lone line goes up about 200 ms after it was printed, without waiting for more output', async () => {
      const { key } = await newWorkspace();
      const api = await proxy(ownUrl);
      await start({ key, apiUrl: api.url });
      const release = releaseFile();
      const job = await ok(
        '/compute/jobs/submit',
        { type: 'COMMAND', command: `echo "lone $(date +%s%3N)"; ${until(release)}; echo after` },
        key,
        ownUrl,
      );
      const [push] = await waitFor(
        'the lone line',
        () => pushesOf(api, job.job_id).length > 0 && pushesOf(api, job.job_id),
        10_000,
      );
      fs.writeFileSync(release, '');
      assert.equal(push.lines.length, 1);
      const printedAt = Number(/^lone (\d+)$/.exec(push.lines[0].line)![1]);
      const delay = push.at - printedAt;
      assert.ok(delay >= 180, `it waited for the 200 ms tick: ${delay} ms`);
      assert.ok(delay < 2000, `and not much longer: ${delay} ms`);
      await waitForJob(key, job.job_id, inState('succeeded'), 20_000);
      assert.deepEqual(await storedLines(job.job_id), [push.lines[0].line, 'after']);
    });
  });

  describe('while the API is away up to 100000 lines are held; past that they are counted and a note says how many were dropped', () => {
    it('on the real stack, with a 50-line buffer', async () => {
      const { key } = await newWorkspace();
      const api = await proxy(ownUrl);
      const dir = scratch('agent');
      // The Agent class itself, in this process, so the test can give it a 50-line buffer.
      const agent = new Agent({
        apiUrl: api.url,
        key,
        name: 'held',
        labels: {},
        concurrency: 1,
        dir,
        killGraceMs: 1000,
        maxBufferedLines: 50,
        log: quietLog,
      });
      await agent.start();
      try {
        await waitFor('the agent to wait in a long poll', () =>
          api.calls.some((c) => c.path === '/api/compute/nodes/poll' && c.forwardedAt && c.status === undefined),
        );
        // From now on every call the agent makes has its connection cut; the poll already under way
        // still brings the job.
        api.fault = () => ({ reset: true });
        const pidFile = scratch('pid');
        const job = await ok(
          '/compute/jobs/submit',
          { type: 'COMMAND', command: `echo $$ > ${pidFile}; seq 1 80 | sed 's/^/line-/'` },
          key,
          ownUrl,
        );
        await pidsOf(pidFile);
        // The job's folder goes once the command ended and every line of it was read.
        await waitFor(
          'the job to end on the agent',
          () => !fs.readdirSync(path.join(dir, 'work')).some((f) => f.startsWith(job.job_id)),
        );
        await waitFor('a push the API never got', () =>
          api.calls.some((c) => c.path === '/api/compute/nodes/logs' && c.fault === 'reset'),
        );
        assert.deepEqual(await storedLines(job.job_id), [], 'nothing reached the API');

        api.fault = () => undefined;
        await waitForJob(key, job.job_id, inState('succeeded'), 30_000);
        assert.deepEqual(await storedLines(job.job_id), [
          ...Array.from({ length: 50 }, (_, i) => `line-${i + 1}`),
          '[compute-agent] 30 lines dropped: output came faster than the API took it (or the API was unreachable)',
        ]);
      } finally {
        api.fault = () => undefined;
        await agent.killJobs();
      }
    });

    it('100000 lines by default (in memory: an API that answers nothing while 100007 lines come)', async () => {
      // A stand-in for the API here only: the real stack above proves the mechanism, this the number.
      const got: LogLine[] = [];
      let answer!: () => void;
      const held = new Promise<void>((resolve) => (answer = resolve));
      const batcher = new LogBatcher({
        send: async (lines) => {
          await held;
          got.push(...lines);
        },
        onLeaseLost: () => assert.fail('no 409 here'),
      });
      for (let i = 1; i <= 100_007; i++) batcher.push('stdout', `l${i}`);
      answer();
      await batcher.close();
      assert.equal(got.length, 100_001);
      assert.equal(got[99_999].line, 'l100000');
      assert.equal(
        got[100_000].line,
        '[compute-agent] 7 lines dropped: output came faster than the API took it (or the API was unreachable)',
      );
    });
  });
});
