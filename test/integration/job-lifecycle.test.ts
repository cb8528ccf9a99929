// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { testEnv } from '../support/env';
import {
  inState,
  newWorkspace,
  ok,
  pollOne,
  post,
  registerNode,
  retrieve,
  submit,
  waitForJob,
  heldJob,
  resultOf,
} from '../support/http';
import { readLogStream } from '../support/sse';

describe('a job through the agent protocol', () => {
  it('succeeds with exitCode, runtimeMs, nodeId and its log lines over SSE', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const sub = await submit(key, { command: 'echo hello', env: { A: '1' }, labels: { team: 'x' } });
    assert.equal(sub.state, 'queued');
    assert.match(sub.job_id, /^job_/);
    const job = await pollOne(node);
    assert.ok(job);
    assert.equal(job.job_id, sub.job_id);
    assert.deepEqual(job.env, { A: '1' });
    assert.equal((await retrieve(key, sub.job_id)).state, 'running');
    await ok(
      '/compute/nodes/logs',
      {
        nodeId: node.nodeId,
        job_id: job.job_id,
        leaseId: job.leaseId,
        lines: [
          { seq: 1, stream: 'stdout', line: 'hello' },
          { seq: 2, stream: 'stderr', line: 'oops' },
        ],
      },
      node.nodeKey,
    );
    const done = await ok('/compute/nodes/result', resultOf(node, job, 0, 42), node.nodeKey);
    assert.equal(done.state, 'succeeded');
    const rec = await retrieve(key, sub.job_id);
    assert.equal(rec.exitCode, 0);
    assert.equal(rec.runtimeMs, 42);
    assert.equal(rec.nodeId, node.nodeId);
    assert.ok(rec.finishedAt && rec.startedAt);
    const { events } = await readLogStream(key, sub.job_id);
    assert.deepEqual(
      events.map((e) => [e.event, e.data.line ?? e.data.state]),
      [
        ['log', 'hello'],
        ['log', 'oops'],
        ['end', 'succeeded'],
      ],
    );
    assert.deepEqual(events.map((e) => e.data.stream).slice(0, 2), ['stdout', 'stderr']);
  });

  it('repeats a result idempotently and fails on a non-zero exit', async () => {
    const { key, node, sub, job } = await heldJob();
    const body = resultOf(node, job, 3, 5);
    const first = await ok('/compute/nodes/result', body, node.nodeKey);
    const again = await ok('/compute/nodes/result', body, node.nodeKey);
    assert.equal(first.state, 'failed');
    assert.equal(again.state, 'failed');
    const rec = await retrieve(key, sub.job_id);
    assert.equal(rec.exitCode, 3);
    assert.equal(rec.failureReason, 'exit_code');
  });

  it('cancels a queued job at once; a terminal one is 409 job.invalid_state', async () => {
    const { key } = await newWorkspace();
    const sub = await submit(key);
    const cancelled = await ok('/compute/jobs/cancel', { job_id: sub.job_id }, key);
    assert.equal(cancelled.state, 'cancelled');
    const again = await post('/compute/jobs/cancel', { job_id: sub.job_id }, key);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'job.invalid_state');
    assert.equal(again.body.payload, undefined);
    const node = await registerNode(key);
    assert.equal(await pollOne(node, 0), undefined, 'a cancelled job is never handed out');
  });

  it('cancels a running job: cancelling until the agent confirms, and the agent is told to stop', async () => {
    const { key, node, sub, job } = await heldJob();
    const cancelling = await ok('/compute/jobs/cancel', { job_id: sub.job_id }, key);
    assert.equal(cancelling.state, 'cancelling');
    const hb = await ok('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [job.job_id] }, node.nodeKey);
    assert.deepEqual(hb.cancel, [job.job_id]);
    const confirmed = await ok('/compute/nodes/result', resultOf(node, job, 143, 9), node.nodeKey);
    assert.equal(confirmed.state, 'cancelled');
  });

  it('cancels a running job after the grace when the agent never confirms', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const sub = await submit(key);
    const held = await pollOne(node);
    assert.equal(held?.job_id, sub.job_id, 'the node holds the job');
    // The grace starts when the run takes the cancel, which is after the request is sent and may
    // be well before its answer arrives on a loaded machine: measured from the sending.
    const asked = Date.now();
    const cancelling = await ok('/compute/jobs/cancel', { job_id: sub.job_id }, key);
    assert.equal(cancelling.state, 'cancelling');
    const job = await waitForJob(key, sub.job_id, inState('cancelled'), 10_000);
    assert.equal(job.state, 'cancelled');
    const graceMs = testEnv().config.durations.cancelGraceMs;
    assert.ok(
      Date.now() - asked >= graceMs - 50,
      `cancelled ${Date.now() - asked} ms after the cancel, before the ${graceMs} ms grace`,
    );
  });

  it('retries a failed job by hand with attempt + 1 and a new lease; the old lease is refused', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const sub = await submit(key);
    const first = (await pollOne(node))!;
    const notYet = await post('/compute/jobs/retry', { job_id: sub.job_id }, key);
    assert.equal(notYet.status, 409, 'a running job cannot be retried');
    assert.equal(notYet.body.code, 'job.invalid_state');
    await ok('/compute/nodes/result', resultOf(node, first, 1), node.nodeKey);
    const retried = await ok('/compute/jobs/retry', { job_id: sub.job_id }, key);
    assert.equal(retried.state, 'queued');
    assert.equal(retried.attempt, 2);
    const second = (await pollOne(node))!;
    assert.equal(second.attempt, 2);
    assert.notEqual(second.leaseId, first.leaseId);
    const stale = await post('/compute/nodes/result', resultOf(node, first, 0), node.nodeKey);
    assert.equal(stale.status, 409);
    assert.equal(stale.body.code, 'job.not_assigned');
    const staleLogs = await post(
      '/compute/nodes/logs',
      {
        nodeId: node.nodeId,
        job_id: first.job_id,
        leaseId: first.leaseId,
        lines: [{ seq: 9, stream: 'stdout', line: 'late' }],
      },
      node.nodeKey,
    );
    assert.equal(staleLogs.body.code, 'job.not_assigned');
    const done = await ok('/compute/nodes/result', resultOf(node, second, 0), node.nodeKey);
    assert.equal(done.state, 'succeeded');
    assert.equal(done.attempt, 2);
    const retryDone = await post('/compute/jobs/retry', { job_id: sub.job_id }, key);
    assert.equal(retryDone.body.code, 'job.invalid_state', 'a succeeded job cannot be retried');
  });

  it('retries automatically per the manifest, the backoff doubling per failure', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const sub = await submit(key, { retry: { maxAttempts: 3, backoffSeconds: 1 } });
    let held = (await pollOne(node))!;
    // A durable timer never fires early, so the lower bounds are exact; the upper ones are generous.
    for (const [attempt, backoffMs] of [
      [2, 1000],
      [3, 2000],
    ]) {
      const failedAt = Date.now();
      const requeued = await ok('/compute/nodes/result', resultOf(node, held, 2), node.nodeKey);
      assert.equal(requeued.state, 'queued');
      assert.equal(requeued.attempt, attempt);
      held = (await pollOne(node, 15))!;
      const waited = Date.now() - failedAt;
      assert.ok(
        waited >= backoffMs - 50 && waited < backoffMs + 5000,
        `attempt ${attempt} handed out after ${waited} ms, not its ${backoffMs} ms backoff`,
      );
      assert.equal(held.attempt, attempt);
    }
    await ok('/compute/nodes/result', resultOf(node, held, 2), node.nodeKey);
    const rec = await retrieve(key, sub.job_id);
    assert.equal(rec.state, 'failed', 'maxAttempts spent');
    assert.equal(rec.attempt, 3);
  });
});
