// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { type ApiProxy, agentPool, agentScratch, type Fault, pidsWritten, running, waitFor } from '../support/agents';
import { storedKeys } from '../support/artifacts';
import { testEnv } from '../support/env';
import { inState, newWorkspace, ok, retrieve, storedLines, waitForJob } from '../support/http';

// The claims of docs/guides/agents-and-cli.md and artifacts.md about the agent's processes and
// uploads, tested on the real stack with `compute agent`. Where a claim is about failures, a
// proxy in front of the real API cuts a connection or answers 503/429 itself.
//
// The first SIGTERM's drain is proven by "the agent / drains on SIGTERM" (test/integration/agent.test.ts);
// here the second SIGTERM, and the DRAINING state between the two.
describe("the agent's processes and uploads, as the agents guide says", () => {
  const start = agentPool();
  const { scratch, proxy, pidsOf } = agentScratch();

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
    const timedOut = await ok(
      '/compute/jobs/submit',
      { type: 'COMMAND', command: stubborn(t), timeoutSeconds: 1 },
      key,
    );
    const cancelPids = await pidsOf(`${c}.pids`, 2);
    await pidsOf(`${t}.pids`, 2);
    await ok('/compute/jobs/cancel', { job_id: cancelled.job_id }, key);

    const watch = async (d: string) => {
      const termAt = Number(
        await waitFor(
          `SIGTERM in ${d}`,
          () => fs.existsSync(`${d}.term`) && fs.readFileSync(`${d}.term`, 'utf8').trim(),
          15_000,
        ),
      );
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
      {
        type: 'COMMAND',
        command: `sleep 1000 > /dev/null 2>&1 & echo $! >> ${left}; sleep 1000 & echo $! >> ${left}; echo bye`,
      },
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
    const job = await ok(
      '/compute/jobs/submit',
      {
        type: 'COMMAND',
        command: `trap 'echo stopping; exit 3' TERM; echo $$ > ${pidFile}; echo started; while :; do sleep 0.1; done`,
      },
      key,
    );
    const [pid] = await pidsOf(pidFile);
    await waitFor('the job to run', async () => (await retrieve(key, job.job_id)).state === 'running');

    process.kill(agent.child.pid, 'SIGTERM');
    await waitFor(
      'the node to drain',
      async () => (await ok('/compute/nodes/list', {}, key)).nodes[0].state === 'DRAINING',
    );
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
    const stdout = await testEnv()
      .db('job_logs')
      .where({ job_id: job.job_id, kind: 'line', stream: 'stdout' })
      .orderBy('seq')
      .pluck('line');
    assert.deepEqual(stdout, ['started', 'stopping'], 'its last words arrived too');
  });

  describe('artifacts', () => {
    const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
    const uploadsOf = (api: ApiProxy, jobId: string) =>
      api.calls.filter((c) => c.method === 'PUT' && c.path.startsWith(`/api/compute/artifacts/upload/${jobId}/`));

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
      const job = await ok(
        '/compute/jobs/submit',
        {
          type: 'COMMAND',
          command: 'echo one > a.txt; echo two > b.txt; echo three > c.txt',
          artifacts: { paths: ['*.txt'] },
        },
        key,
      );
      const done = await waitForJob(key, job.job_id, inState('succeeded', 'failed'), 30_000);
      assert.equal(done.state, 'succeeded');

      const tries = uploadsOf(api, job.job_id).map((c) => [c.query.get('name'), c.fault ?? c.status]);
      assert.deepEqual(tries, [
        ['a.txt', 'reset'],
        ['a.txt', 200],
        ['b.txt', '503'],
        ['b.txt', 200],
        ['c.txt', '429'],
        ['c.txt', 200],
      ]);
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
        notes.map((l) =>
          /^\[compute-agent\] uploaded artifact (\S+) \((\d+) bytes, sha256 (\w+)…\)$/.exec(l)?.slice(1),
        ),
        Object.entries(bodies).map(([name, body]) => [name, String(body.length), sha256(body).slice(0, 12)]),
      );
    });

    it('a cancelled or timed-out job uploads nothing', async () => {
      const { key, workspaceId } = await newWorkspace();
      const api = await proxy();
      await start({ key, apiUrl: api.url, concurrency: 2 });
      const [c, t] = [scratch('cancelled'), scratch('timed-out')];
      const job = (d: string) => `echo made > out.txt; echo $$ > ${d}; sleep 1000`;
      const cancelled = await ok(
        '/compute/jobs/submit',
        { type: 'COMMAND', command: job(c), artifacts: { paths: ['*.txt'] } },
        key,
      );
      const timedOut = await ok(
        '/compute/jobs/submit',
        { type: 'COMMAND', command: job(t), artifacts: { paths: ['*.txt'] }, timeoutSeconds: 1 },
        key,
      );
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
