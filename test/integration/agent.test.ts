// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { agentPool, alive, waitFor } from '../support/agents';
import { compute } from '../support/cli';
import { testEnv } from '../support/env';
import { inState, newWorkspace, ok, retrieve, submit, waitForJob } from '../support/http';

const linesOf = async (jobId: string) =>
  (await testEnv().db('job_logs').where({ job_id: jobId, kind: 'line' }).orderBy('seq')).map(
    (r) => `${r.stream}:${r.line}`,
  );

/** A command that starts two grandchildren and records every pid of its tree in `file`. */
const treeCommand = (file: string) =>
  `sleep 300 & a=$!; sleep 300 & b=$!; echo "$$ $a $b" > ${file}; echo started; wait`;
const pidsIn = (file: string) => fs.readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);

describe('the agent', () => {
  const start = agentPool();

  it('runs `compute run` end to end: output streams, stderr apart, the exit code comes back', async () => {
    const { key } = await newWorkspace();
    await start({ key });
    const manifest = path.join(testEnv().dataDir, 'job.yaml');
    fs.writeFileSync(
      manifest,
      'type: COMMAND\ncommand: "echo out-1; echo err-1 >&2; echo out-2; exit 3"\nlabels: {team: ops}\n',
    );
    const run = await compute(['run', manifest], { env: { COMPUTE_API_KEY: key } });
    assert.equal(run.code, 3, run.stderr);
    assert.equal(run.stdout, 'out-1\nout-2\n');
    assert.match(run.stderr, /err-1/);
    assert.match(run.stderr, /job_\w+ failed \(exit 3\)/);

    const listed = await compute(['jobs', 'list', '--json', '--label', 'team=ops'], { env: { COMPUTE_API_KEY: key } });
    const jobs = JSON.parse(listed.stdout).jobs;
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0].exitCode, 3);
    const logs = await compute(['logs', jobs[0].job_id, '--json'], { env: { COMPUTE_API_KEY: key } });
    // Two pipes: order holds within a stream, not across them.
    const events = logs.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      events.filter((e) => e.stream === 'stdout').map((e) => e.line),
      ['out-1', 'out-2'],
    );
    assert.deepEqual(
      events.filter((e) => e.stream === 'stderr').map((e) => e.line),
      ['err-1'],
    );
    const bad = await compute(['jobs', 'get', 'job_00000000000000000000000000'], { env: { COMPUTE_API_KEY: key } });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^error: job not found \[resource\.not_found\]$/m);
  });

  it('really kills the process tree on cancel and on timeout', async () => {
    const { key } = await newWorkspace();
    await start({ key, concurrency: 2 });
    const cancelFile = path.join(testEnv().dataDir, `tree-cancel-${Date.now()}`);
    const timeoutFile = path.join(testEnv().dataDir, `tree-timeout-${Date.now()}`);
    const cancelled = await submit(key, { command: treeCommand(cancelFile) });
    const timedOut = await submit(key, { command: treeCommand(timeoutFile), timeoutSeconds: 2 });
    const cancelPids = await waitFor(
      'the first tree',
      () => fs.existsSync(cancelFile) && fs.readFileSync(cancelFile, 'utf8').includes(' ') && pidsIn(cancelFile),
    );
    assert.ok(cancelPids.every(alive));
    await ok('/compute/jobs/cancel', { job_id: cancelled.job_id }, key);
    const done = await waitForJob(key, cancelled.job_id, inState('cancelled'));
    assert.equal(done.exitCode, 143, 'the agent confirmed with the SIGTERM exit status');
    await waitFor('the cancelled tree to be gone', () => cancelPids.every((p) => !alive(p)));

    const timeoutPids = await waitFor(
      'the second tree',
      () => fs.existsSync(timeoutFile) && fs.readFileSync(timeoutFile, 'utf8').includes(' ') && pidsIn(timeoutFile),
    );
    await waitForJob(key, timedOut.job_id, inState('timed-out'));
    await waitFor('the timed-out tree to be gone', () => timeoutPids.every((p) => !alive(p)));
  });

  it('drains on SIGTERM: running jobs finish and are reported, no new job is taken', async () => {
    const { key } = await newWorkspace();
    const agent = await start({ key, concurrency: 2 });
    const slow = [
      await submit(key, { command: 'sleep 2; echo one' }),
      await submit(key, { command: 'sleep 2; echo two' }),
    ];
    await waitFor('both jobs running', async () =>
      (await Promise.all(slow.map((j) => retrieve(key, j.job_id)))).every((j) => j.state === 'running'),
    );
    process.kill(agent.child.pid, 'SIGTERM');
    await waitFor(
      'the node to drain',
      async () => (await ok('/compute/nodes/list', {}, key)).nodes[0].state !== 'ONLINE',
    );
    const late = await submit(key, { command: 'echo late' });
    assert.equal(await agent.child.exited, 0, 'the agent exits by itself once drained');
    for (const j of slow) assert.equal((await retrieve(key, j.job_id)).state, 'succeeded');
    assert.deepEqual(await linesOf(slow[1].job_id), ['stdout:two']);
    assert.equal((await retrieve(key, late.job_id)).state, 'queued', 'nothing new was taken');
  });

  it('stops with an error when its node key is revoked', async () => {
    const { key } = await newWorkspace();
    const agent = await start({ key });
    await ok('/compute/nodes/rotate-key', { nodeId: agent.nodeId() }, key);
    assert.equal(await agent.child.exited, 1);
    assert.match(agent.log(), /the API refused this node/);
  });
});
