// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { testEnv } from '../support/env';
import { jobRunStory } from '../support/temporal-client';
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

// Test config: agents are lost after 2.5 s without a heartbeat naming the job, backoff 200 ms.
describe('durable timers', () => {
  it('times a job out and tells the agent to kill it; its late result is refused', async () => {
    const { key, node, sub, job } = await heldJob({ timeoutSeconds: 1 });
    const out = await waitForJob(key, sub.job_id, inState('timed-out'), 10_000);
    assert.equal(out.failureReason, 'timeout');
    const hb = await ok('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [job.job_id] }, node.nodeKey);
    assert.deepEqual(hb.cancel, [job.job_id]);
    const poll = await ok('/compute/nodes/poll', { nodeId: node.nodeId }, node.nodeKey);
    assert.deepEqual(poll.cancel, [job.job_id], 'the poll answer carries the kill too');
    const late = await post('/compute/nodes/result', resultOf(node, job, 0), node.nodeKey);
    assert.equal(late.body.code, 'job.not_assigned');
    assert.equal((await retrieve(key, sub.job_id)).state, 'timed-out');
  });

  it('keeps a job whose agent heartbeats, requeues it when the agent goes silent', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const sub = await submit(key);
    const first = (await pollOne(node))!;
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const hb = await ok(
        '/compute/nodes/heartbeat',
        { nodeId: node.nodeId, runningJobs: [first.job_id] },
        node.nodeKey,
      );
      assert.deepEqual(hb.cancel, []);
    }
    assert.equal((await retrieve(key, sub.job_id)).state, 'running', 'heartbeats keep the job through 4 s > 2.5 s');
    const requeued = await waitForJob(key, sub.job_id, (j) => j.state === 'queued', 10_000);
    assert.equal(requeued.attempt, 2);
    const other = await registerNode(key, {}, 'second');
    // Claimable once the run's backoff timer fires and rewrites the row, which wakes this poll: a
    // durable timer and a workflow task, so on a loaded Temporal the longest poll there is.
    const second = (await pollOne(other, 30))!;
    assert.equal(second.job_id, sub.job_id);
    assert.notEqual(second.leaseId, first.leaseId);
    const back = await ok(
      '/compute/nodes/heartbeat',
      { nodeId: node.nodeId, runningJobs: [first.job_id] },
      node.nodeKey,
    );
    assert.deepEqual(back.cancel, [first.job_id], 'the lost agent, back, is told to kill its copy');
    const late = await post('/compute/nodes/result', resultOf(node, first, 0), node.nodeKey);
    assert.equal(late.body.code, 'job.not_assigned');
    const done = await ok('/compute/nodes/result', resultOf(other, second, 0), other.nodeKey);
    assert.equal(done.state, 'succeeded');
  });

  it('fails a job with agent_lost after its third agent loss', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const sub = await submit(key);
    for (let attempt = 1; attempt <= 3; attempt++) {
      // As above: a requeued job is claimable once its backoff timer fires and the run rewrites its
      // row, so on a loaded Temporal this poll waits as long as that one.
      const job = await pollOne(node, 30);
      assert.ok(job, `attempt ${attempt} was claimable within 30 s; ${await jobRunStory(sub.job_id)}`);
      assert.equal(job.attempt, attempt);
      await waitForJob(key, sub.job_id, (j) => j.state !== 'running', 10_000);
    }
    const failed = await retrieve(key, sub.job_id);
    assert.equal(failed.state, 'failed');
    assert.equal(failed.failureReason, 'agent_lost');
    const losses = await testEnv()
      .db('job_attempts')
      .where({ job_id: sub.job_id, end_reason: 'agent_lost' })
      .count<{ count: string }[]>('* as count');
    assert.equal(Number(losses[0].count), 3);
  });

  it('drains a node: no new jobs, and past the deadline its running job is requeued', async () => {
    const { key, node, sub, job } = await heldJob();
    const drained = await ok('/compute/nodes/drain', { nodeId: node.nodeId, deadlineSeconds: 1 }, key);
    assert.equal(drained.state, 'DRAINING');
    const hb = await ok('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [job.job_id] }, node.nodeKey);
    assert.equal(hb.drain, true);
    await submit(key);
    const started = Date.now();
    const none = await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 1 }, node.nodeKey);
    assert.deepEqual(none.jobs, [], 'a draining node gets no new job');
    assert.ok(Date.now() - started >= 900, 'a draining node still long-polls rather than spin');
    const requeued = await waitForJob(key, sub.job_id, (j) => j.state === 'queued', 10_000);
    assert.equal(requeued.attempt, 2);
    // The agent heartbeats on (were it silent past the loss window, the list would say OFFLINE).
    const told = await ok('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [job.job_id] }, node.nodeKey);
    assert.deepEqual(told.cancel, [job.job_id], 'past the deadline the agent is told to stop its copy');
    const list = await ok('/compute/nodes/list', {}, key);
    assert.equal(list.nodes[0].state, 'DRAINED');
    const undrained = await ok('/compute/nodes/drain', { nodeId: node.nodeId, enable: false }, key);
    assert.equal(undrained.state, 'ONLINE');
  });
});
