import assert from 'node:assert/strict';
import { suiteDataConverter } from '../support/temporal-client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { waitFor } from '../support/agents';
import { apisPerTest } from '../support/api-process';
import { testEnv } from '../support/env';
import { newWorkspace, ok, post, registerNode, sleep } from '../support/http';

// A poll that asks for several jobs hands over what it holds once a later claim turns slow: the
// first job's agent-loss clock runs from its assignment, not from when the batch is complete.
describe('a poll for several jobs', () => {
  const apiWith = apisPerTest();

  it('hands over the jobs it holds while a later claim waits on its workflow, and withdraws that one without an agent loss', async function () {
    this.timeout(60_000);
    const { key, workspaceId } = await newWorkspace();
    // The slow one: its workflow is on a task queue no worker serves, so its assign Update hangs.
    const taskQueue = `unserved-${Date.now()}`;
    const unserved = await apiWith({ TEMPORAL_TASK_QUEUE: taskQueue });
    const slow = await ok(
      '/compute/jobs/submit',
      { type: 'COMMAND', command: 'echo slow', priority: 1 },
      key,
      unserved.url!,
    );
    const fast = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo fast', priority: 5 }, key);
    const node = await registerNode(key);

    const asked = Date.now();
    const reply = await post('/compute/nodes/poll', { nodeId: node.nodeId, maxJobs: 2, waitSeconds: 0 }, node.nodeKey);
    const answeredIn = Date.now() - asked;
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(
      reply.body.payload.jobs.map((j: { job_id: string }) => j.job_id),
      [fast.job_id],
    );
    // Well inside AGENT_LOST_AFTER_MS (2500 here); the Update's own budget is about 10 s.
    assert.ok(answeredIn < 2000, `answered in ${answeredIn} ms`);

    // Held past the loss clock, the handed-over job is still this node's first attempt.
    const held = reply.body.payload.jobs[0];
    await sleep(1500);
    await ok('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [fast.job_id] }, node.nodeKey);
    await ok(
      '/compute/nodes/result',
      { nodeId: node.nodeId, job_id: fast.job_id, leaseId: held.leaseId, exitCode: 0, runtimeMs: 1 },
      node.nodeKey,
    );
    const row = await testEnv().db('jobs').where({ id: fast.job_id }).first('state', 'attempt');
    assert.deepEqual(row, { state: 'SUCCEEDED', attempt: 1 });

    // The slow job was never handed to anyone: still queued.
    const slowRow = await testEnv()
      .db('jobs')
      .where({ id: slow.job_id, workspace_id: workspaceId })
      .first('state', 'agent_id');
    assert.deepEqual(slowRow, { state: 'QUEUED', agent_id: null });

    // A worker for its queue appears: the late assignment applies, then its withdrawal requeues
    // the job as `undelivered` (no agent loss); then it is cancelled, leaving nothing behind.
    const connection = await NativeConnection.connect({ address: testEnv().config.temporal.address! });
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: testEnv().bundle,
      activities: createActivities({ db: testEnv().db }),
      dataConverter: await suiteDataConverter(),
    });
    await worker.runUntil(async () => {
      await waitFor(
        'the late assignment withdrawn',
        async () => {
          const ends = await testEnv().db('job_attempts').where({ job_id: slow.job_id }).pluck('end_reason');
          return ends.length === 1 && ends[0] === 'undelivered';
        },
        30_000,
      );
      await ok('/compute/jobs/cancel', { job_id: slow.job_id }, key, unserved.url!);
      await waitFor(
        'the slow job cancelled',
        async () => (await testEnv().db('jobs').where({ id: slow.job_id }).first('state')).state === 'CANCELLED',
        30_000,
      );
    });
    await connection.close();
  });
});
