import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Agent } from '../src/reference-agent/agent';
import { LogBatcher, type LogLine } from '../src/reference-agent/log-batcher';
import type { ManagedChild } from '../src/stack/child';
import { freePort } from '../src/stack/ports';
import { type ApiProxy, agentPool, type Fault, pidsWritten, type ProxiedCall, running, startApiProxy, waitFor } from './support/agents';
import { spawnApi } from './support/api-process';
import { storedKeys } from './support/artifacts';
import { quietLog, testEnv } from './support/env';
import { inState, newWorkspace, ok, retrieve, storedLines, waitForJob } from './support/http';

// Each claim is the README's ("The CLI and the agent", "Artifacts"), tested on the real stack: the
// agent is `compute agent` (or, where a test needs a smaller buffer, the same Agent class in this
// process), and whatever it sends goes to a real API. A proxy in front of that API records the
// pushes and, where a claim is about failures, cuts a connection or answers 503/429 itself.
//
// The first SIGTERM's drain is proven by "the agent / drains on SIGTERM" (test/agent.test.ts);
// here the second SIGTERM, and the DRAINING state between the two.

let n = 0;
/** A path in the suite's data folder that no other test uses. */
const scratch = (name: string) => path.join(testEnv().dataDir, `claims-${process.pid}-${n++}-${name}`);
/** Shell: wait until the test creates `file` (the test's way to let a job go on). */
const until = (file: string) => `while [ ! -e ${file} ]; do sleep 0.05; done`;

interface Push {
  lines: LogLine[];
  at: number;
  answeredAt: number;
}
/** The log pushes of one job the API accepted, in order. */
const pushesOf = (proxy: ApiProxy, jobId: string): Push[] =>
  proxy.calls
    .filter((c: ProxiedCall) => c.path === '/api/compute/nodes/logs' && c.status === 200 && c.json().job_id === jobId)
    .map((c) => ({ lines: c.json().lines as LogLine[], at: c.at, answeredAt: c.answeredAt! }));
/**
 * How long each push waited once it could go: after its last line was read (the line's `ts` is
 * the agent's clock at reading it) and after the push before it was answered.
 */
const waits = (pushes: Push[]) => pushes.map((p, i) => p.at - Math.max(Date.parse(p.lines.at(-1)!.ts), i > 0 ? pushes[i - 1].answeredAt : 0));

describe('the agent, as the README says', () => {
  const start = agentPool();
  const proxies: ApiProxy[] = [];
  const pids: number[] = [];
  const releases: string[] = [];
  // An API of its own: a log budget wide enough to keep megabytes, and a long loss window for the
  // jobs it submits, so an agent that cannot reach it for a while keeps its job.
  let ownApi: ManagedChild;
  let ownUrl = '';

  const proxy = async (target?: string) => {
    const p = await startApiProxy(target);
    proxies.push(p);
    return p;
  };
  /** A file whose creation lets a job end (`until`); created after the test whatever happened. */
  const releaseFile = () => {
    const file = scratch('release');
    releases.push(file);
    return file;
  };
  /** Pids a job wrote to `file`, remembered so that a failing test leaves no process behind. */
  const pidsOf = async (file: string, count = 1) => {
    const found = await pidsWritten(file, count);
    pids.push(...found);
    return found;
  };

  before(async () => {
    const port = await freePort();
    ownUrl = `http://127.0.0.1:${port}`;
    ownApi = await spawnApi(port, { LOG_LIMIT_BYTES: String(64 * 1024 * 1024), AGENT_LOST_AFTER_MS: '60000' });
  });
  after(async () => {
    await ownApi?.stop(2000);
  });
  afterEach(async () => {
    // A job's shell leads its process group: the whole group goes.
    for (const pid of pids.splice(0)) {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // gone, as it should be
        }
      }
    }
    for (const file of releases.splice(0)) fs.writeFileSync(file, '');
    for (const p of proxies.splice(0)) await p.close();
  });

  describe('logs go up in batches of 100 lines, 512 KiB or 200 ms, whichever comes first', () => {
    it('100 waiting lines go at once, never more than 100 in a push, and the API stores every line', async () => {
      const { key } = await newWorkspace();
      const api = await proxy(ownUrl);
      await start({ key, apiUrl: api.url });
      const release = releaseFile();
      const job = await ok('/compute/jobs/submit', { type: 'COMMAND', command: `seq 1 650 | sed 's/^/line-/'; ${until(release)}` }, key, ownUrl);
      // The job holds on, so the pushes are the batcher's doing, not the flush at the job's end.
      const pushes = await waitFor('650 lines pushed', () => {
        const got = pushesOf(api, job.job_id);
        return got.flatMap((p) => p.lines).length >= 650 && got;
      });
      fs.writeFileSync(release, '');
      await waitForJob(key, job.job_id, inState('succeeded'), 20_000);

      const sizes = pushes.map((p) => p.lines.length);
      assert.ok(sizes.every((s) => s <= 100), `no push over 100 lines: ${sizes}`);
      assert.deepEqual(pushes.flatMap((p) => p.lines.map((l) => l.seq)), Array.from({ length: 650 }, (_, i) => i + 1), 'each line once, in order');
      const full = pushes.filter((p) => p.lines.length === 100);
      assert.ok(full.length >= 5, `mostly full batches: ${sizes}`);
      // A full batch does not wait for the 200 ms tick (the loaded machine gets 150 ms of slack).
      const waited = waits(full);
      assert.ok(waited.every((w) => w < 150), `full batches waited ${waited} ms`);
      assert.deepEqual(await storedLines(job.job_id), Array.from({ length: 650 }, (_, i) => `line-${i + 1}`));
    });

    it('512 KiB waiting go at once, never more in a push, and the API stores every line', async () => {
      const { key } = await newWorkspace();
      const api = await proxy(ownUrl);
      await start({ key, apiUrl: api.url });
      const release = releaseFile();
      // 65 lines of 50000 bytes: ten make a batch (the eleventh would pass 512 KiB), 100 lines never.
      const big = `s=$(head -c 50000 /dev/zero | tr '\\0' x); i=1; while [ $i -le 65 ]; do echo "big-$i-$s"; i=$((i + 1)); done`;
      const job = await ok('/compute/jobs/submit', { type: 'COMMAND', command: `${big}; ${until(release)}` }, key, ownUrl);
      const pushes = await waitFor('65 big lines pushed', () => {
        const got = pushesOf(api, job.job_id);
        return got.flatMap((p) => p.lines).length >= 65 && got;
      });
      fs.writeFileSync(release, '');
      await waitForJob(key, job.job_id, inState('succeeded'), 20_000);

      const bytes = pushes.map((p) => p.lines.reduce((sum, l) => sum + Buffer.byteLength(l.line), 0));
      assert.ok(bytes.every((b) => b <= 512 * 1024), `no push over 512 KiB: ${bytes}`);
      assert.deepEqual(pushes.flatMap((p) => p.lines.map((l) => l.seq)), Array.from({ length: 65 }, (_, i) => i + 1));
      const full = pushes.filter((p) => p.lines.length === 10);
      assert.ok(full.length >= 5, `mostly 10-line batches: ${pushes.map((p) => p.lines.length)}`);
      const waited = waits(full);
      assert.ok(waited.every((w) => w < 150), `full batches waited ${waited} ms`);
      const stored = await testEnv().db('job_logs').where({ job_id: job.job_id, kind: 'line' }).orderBy('seq').select(testEnv().db.raw('length(line) as len'), testEnv().db.raw("split_part(line, '-', 2) as i"));
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
      const job = await ok('/compute/jobs/submit', { type: 'COMMAND', command: `echo "lone $(date +%s%3N)"; ${until(release)}; echo after` }, key, ownUrl);
      const [push] = await waitFor('the lone line', () => pushesOf(api, job.job_id).length > 0 && pushesOf(api, job.job_id), 10_000);
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
      const agent = new Agent({ apiUrl: api.url, key, name: 'held', labels: {}, concurrency: 1, dir, killGraceMs: 1000, maxBufferedLines: 50, log: quietLog });
      await agent.start();
      try {
        await waitFor('the agent to wait in a long poll', () => api.calls.some((c) => c.path === '/api/compute/nodes/poll' && c.forwardedAt && c.status === undefined));
        // From now on every call the agent makes has its connection cut; the poll already under way
        // still brings the job.
        api.fault = () => ({ reset: true });
        const pidFile = scratch('pid');
        const job = await ok('/compute/jobs/submit', { type: 'COMMAND', command: `echo $$ > ${pidFile}; seq 1 80 | sed 's/^/line-/'` }, key, ownUrl);
        await pidsOf(pidFile);
        // The job's folder goes once the command ended and every line of it was read.
        await waitFor('the job to end on the agent', () => !fs.readdirSync(path.join(dir, 'work')).some((f) => f.startsWith(job.job_id)));
        await waitFor('a push the API never got', () => api.calls.some((c) => c.path === '/api/compute/nodes/logs' && c.fault === 'reset'));
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
      assert.equal(got[100_000].line, '[compute-agent] 7 lines dropped: output came faster than the API took it (or the API was unreachable)');
    });
  });

  it('cancel and timeout: SIGTERM to the whole group, SIGKILL only after AGENT_KILL_GRACE_MS', async () => {
    const graceMs = 2000;
    const { key } = await newWorkspace();
    await start({ key, concurrency: 2, env: { AGENT_KILL_GRACE_MS: String(graceMs) } });
    // The shell and a child of it both outlive SIGTERM, noting when it came.
    const stubborn = (d: string) =>
      `sh -c 'trap "date +%s%3N > ${d}.child-term" TERM; echo $$ >> ${d}.pids; while :; do sleep 0.1; done' & ` +
      `trap 'date +%s%3N > ${d}.term' TERM; echo $$ >> ${d}.pids; while :; do sleep 0.1; done`;
    const [c, t] = [scratch('cancelled'), scratch('timed-out')];
    const cancelled = await ok('/compute/jobs/submit', { type: 'COMMAND', command: stubborn(c) }, key);
    const timedOut = await ok('/compute/jobs/submit', { type: 'COMMAND', command: stubborn(t), timeoutSeconds: 1 }, key);
    const cancelPids = await pidsOf(`${c}.pids`, 2);
    await pidsOf(`${t}.pids`, 2);
    await ok('/compute/jobs/cancel', { job_id: cancelled.job_id }, key);

    const watch = async (d: string) => {
      const termAt = Number(await waitFor(`SIGTERM in ${d}`, () => fs.existsSync(`${d}.term`) && fs.readFileSync(`${d}.term`, 'utf8').trim(), 15_000));
      await waitFor(`the child's SIGTERM in ${d}`, () => fs.existsSync(`${d}.child-term`));
      const group = await pidsWritten(`${d}.pids`, 2);
      assert.ok(group.every(running), 'both still there after SIGTERM');
      await waitFor(`the group of ${d} to be gone`, () => group.every((p) => !running(p)), graceMs + 10_000);
      return Date.now() - termAt;
    };
    const [cancelGone, timeoutGone] = await Promise.all([watch(c), watch(t)]);
    for (const took of [cancelGone, timeoutGone]) {
      assert.ok(took >= graceMs - 300, `not killed before the grace: ${took} ms after SIGTERM`);
      assert.ok(took < graceMs + 5000, `killed soon after it: ${took} ms after SIGTERM`);
    }
    assert.ok(cancelPids.every((p) => !running(p)));
    // (No exit code to check: the workflow settles the job after CANCEL_GRACE_MS, 1.5 s here.)
    await waitForJob(key, cancelled.job_id, inState('cancelled'));
    await waitForJob(key, timedOut.job_id, inState('timed-out'));
  });

  it("a job's shell exits: whatever it left in its group is killed, even what holds its output open", async () => {
    const { key } = await newWorkspace();
    await start({ key });
    const left = scratch('left');
    const job = await ok(
      '/compute/jobs/submit',
      { type: 'COMMAND', command: `sleep 1000 > /dev/null 2>&1 & echo $! >> ${left}; sleep 1000 & echo $! >> ${left}; echo bye` },
      key,
    );
    const leftovers = await pidsOf(left, 2);
    await waitFor('the leftovers to be gone', () => leftovers.every((p) => !running(p)), 10_000);
    const done = await waitForJob(key, job.job_id, inState('succeeded', 'failed'), 10_000);
    assert.equal(done.state, 'succeeded');
    assert.equal(done.exitCode, 0);
    assert.deepEqual(await storedLines(job.job_id), ['bye']);
  });

  it('a second SIGTERM stops the running job, which is still reported, and the agent exits', async () => {
    const { key } = await newWorkspace();
    const agent = await start({ key });
    const pidFile = scratch('pid');
    const job = await ok('/compute/jobs/submit', { type: 'COMMAND', command: `trap 'echo stopping; exit 3' TERM; echo $$ > ${pidFile}; echo started; while :; do sleep 0.1; done` }, key);
    const [pid] = await pidsOf(pidFile);
    await waitFor('the job to run', async () => (await retrieve(key, job.job_id)).state === 'running');

    process.kill(agent.child.pid, 'SIGTERM');
    await waitFor('the node to drain', async () => (await ok('/compute/nodes/list', {}, key)).nodes[0].state === 'DRAINING');
    assert.ok(running(pid), 'the first SIGTERM lets the job run');
    assert.equal((await retrieve(key, job.job_id)).state, 'running');

    process.kill(agent.child.pid, 'SIGTERM');
    let code: number | null | undefined;
    void agent.child.exited.then((c) => (code = c));
    await waitFor('the agent to exit', () => code !== undefined, 15_000);
    assert.equal(code, 0);
    assert.ok(!running(pid));
    const done = await retrieve(key, job.job_id);
    assert.equal(done.state, 'failed', 'reported before the agent went');
    assert.equal(done.exitCode, 3);
    // (stderr has the shell's "Terminated" for its sleep.)
    const stdout = await testEnv().db('job_logs').where({ job_id: job.job_id, kind: 'line', stream: 'stdout' }).orderBy('seq').pluck('line');
    assert.deepEqual(stdout, ['started', 'stopping'], 'its last words arrived too');
  });

  describe('artifacts', () => {
    const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
    const uploadsOf = (api: ApiProxy, jobId: string) => api.calls.filter((c) => c.method === 'PUT' && c.path.startsWith(`/api/compute/artifacts/upload/${jobId}/`));

    it('an upload cut off, answered 503 or 429 is retried; each upload is noted in the log', async () => {
      const { key, workspaceId } = await newWorkspace();
      const api = await proxy();
      // The first try of each file fails its own way; later tries reach the API.
      const firstTry: Record<string, Fault> = {
        'a.txt': { reset: true },
        'b.txt': { status: 503, code: 'dependency.unavailable', retryAfterSeconds: 1 },
        'c.txt': { status: 429, code: 'rate_limit.exceeded', retryAfterSeconds: 1 },
      };
      api.fault = (call) => {
        if (call.method !== 'PUT') return undefined;
        const name = call.query.get('name')!;
        const fault = firstTry[name];
        delete firstTry[name];
        return fault;
      };
      await start({ key, apiUrl: api.url });
      const job = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo one > a.txt; echo two > b.txt; echo three > c.txt', artifacts: { paths: ['*.txt'] } }, key);
      const done = await waitForJob(key, job.job_id, inState('succeeded', 'failed'), 30_000);
      assert.equal(done.state, 'succeeded');

      const tries = uploadsOf(api, job.job_id).map((c) => [c.query.get('name'), c.fault ?? c.status]);
      assert.deepEqual(tries, [['a.txt', 'reset'], ['a.txt', 200], ['b.txt', '503'], ['b.txt', 200], ['c.txt', '429'], ['c.txt', 200]]);
      const bodies: Record<string, string> = { 'a.txt': 'one\n', 'b.txt': 'two\n', 'c.txt': 'three\n' };
      assert.deepEqual(
        done.artifacts.map((a: { name: string; sha256: string }) => [a.name, a.sha256]).sort(),
        Object.entries(bodies).map(([name, body]) => [name, sha256(body)]),
      );
      const { objects, unfinished } = await storedKeys(workspaceId, job.job_id);
      assert.equal(objects.length, 3);
      assert.deepEqual(unfinished, []);
      const notes = (await storedLines(job.job_id)).filter((l) => l.startsWith('[compute-agent]'));
      assert.deepEqual(
        notes.map((l) => /^\[compute-agent\] uploaded artifact (\S+) \((\d+) bytes, sha256 (\w+)…\)$/.exec(l)?.slice(1)),
        Object.entries(bodies).map(([name, body]) => [name, String(body.length), sha256(body).slice(0, 12)]),
      );
    });

    it('a cancelled or timed-out job uploads nothing', async () => {
      const { key, workspaceId } = await newWorkspace();
      const api = await proxy();
      await start({ key, apiUrl: api.url, concurrency: 2 });
      const [c, t] = [scratch('cancelled'), scratch('timed-out')];
      const job = (d: string) => `echo made > out.txt; echo $$ > ${d}; sleep 1000`;
      const cancelled = await ok('/compute/jobs/submit', { type: 'COMMAND', command: job(c), artifacts: { paths: ['*.txt'] } }, key);
      const timedOut = await ok('/compute/jobs/submit', { type: 'COMMAND', command: job(t), artifacts: { paths: ['*.txt'] }, timeoutSeconds: 1 }, key);
      await pidsOf(c);
      await pidsOf(t);
      await ok('/compute/jobs/cancel', { job_id: cancelled.job_id }, key);
      await waitForJob(key, cancelled.job_id, inState('cancelled'), 15_000);
      await waitForJob(key, timedOut.job_id, inState('timed-out'), 15_000);

      for (const j of [cancelled, timedOut]) {
        assert.deepEqual(uploadsOf(api, j.job_id), [], 'no upload was even tried');
        assert.deepEqual(await testEnv().db('artifacts').where({ job_id: j.job_id }), []);
        assert.deepEqual((await retrieve(key, j.job_id)).artifacts, []);
        assert.deepEqual(await storedKeys(workspaceId, j.job_id), { objects: [], unfinished: [] });
      }
    });
  });
});
