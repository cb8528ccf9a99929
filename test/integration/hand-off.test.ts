import assert from 'node:assert/strict';
import { temporal } from '@temporalio/proto';
import { claimsRun, longPollsWaiting } from '../../src/metrics/registry';
import { waitFor } from '../support/agents';
import { testEnv } from '../support/env';
import {
  inState,
  newWorkspace,
  ok,
  pollOne,
  registerNode,
  resultOf,
  retrieve,
  submit,
  waitForJob,
} from '../support/http';
import { suiteClient } from '../support/temporal-client';

// A job submitted while a poll that can take it waits on the same instance is handed to that poll
// as its run starts (src/jobs/hand-off.ts): the run's first workflow task takes the start and the
// assignment together, and the poll answers with the job without a claim. Nodes with anything
// else to weigh (a capacity, key quotas) are offered the job and claim it as before.

const claimsBy = async (outcome: string) =>
  (await claimsRun.get()).values.filter((v) => v.labels.outcome === outcome).reduce((s, v) => s + v.value, 0);
const waitingNow = async () => (await longPollsWaiting.get()).values[0]?.value ?? 0;

const { EventType } = temporal.api.enums.v1;

type Poll = {
  jobs: Array<{ job_id: string; leaseId: string; attempt: number; env: Record<string, string> }>;
  cancel: string[];
};

/** Starts the node's long poll and resolves once it waits here. */
async function waitingPoll(node: { nodeId: string; nodeKey: string }, waitSeconds = 10) {
  const before = await waitingNow();
  let answer: Poll | undefined;
  const done = ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds }, node.nodeKey).then(
    (out: Poll) => (answer = out),
  );
  await waitFor('the poll to wait', async () => (await waitingNow()) - before >= 1);
  return { done, answered: () => answer };
}

describe('a job handed to the poll waiting for it', function () {
  this.timeout(60_000);

  it('goes to the poll with its run’s start: no claim, one workflow task for both, the row written before the answer', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key, { pool: 'gpu' });
    const poll = await waitingPoll(node);
    const handedBefore = await claimsBy('handed');
    const assignedBefore = await claimsBy('assigned');

    const job = await submit(key, { selector: { pool: 'gpu' }, env: { GREETING: 'hi' } });
    assert.equal(job.state, 'queued', 'the submit answers the job as it accepted it');
    const answer = await poll.done;
    assert.deepEqual(
      answer.jobs.map((j) => [j.job_id, j.attempt, j.env.GREETING]),
      [[job.job_id, 1, 'hi']],
    );
    assert.equal((await claimsBy('handed')) - handedBefore, 1, 'handed');
    assert.equal((await claimsBy('assigned')) - assignedBefore, 0, 'not claimed');

    // Written before the answer, as a claim's assignment is: the node's own calls find it theirs.
    const running = await retrieve(key, job.job_id);
    assert.equal(running.state, 'running');
    assert.equal(running.nodeId, node.nodeId);
    const attempt = await testEnv().db('job_attempts').where({ job_id: job.job_id }).first();
    assert.equal(attempt.lease_id, answer.jobs[0].leaseId);
    assert.equal(attempt.agent_id, node.nodeId);
    const audit = await testEnv().db('audit_log').where({ target_id: job.job_id, action: 'job.submit' });
    assert.equal(audit.length, 1, 'the submit is audited once');

    await ok('/compute/nodes/result', resultOf(node, answer.jobs[0], 0), node.nodeKey);
    await waitForJob(key, job.job_id, (j) => j.state === 'succeeded');

    // The run: its start and the assignment in its first workflow task, the result in its second.
    const client = await suiteClient();
    try {
      const history = await client.workflow.getHandle(job.job_id).fetchHistory();
      const types = (history.events ?? []).map((e) => EventType[e.eventType ?? 0]);
      const tasks = types.filter((t) => t === 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED').length;
      const firstAccepted = types.indexOf('EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED');
      const secondTask = types.indexOf('EVENT_TYPE_WORKFLOW_TASK_SCHEDULED', 2);
      assert.equal(tasks, 2, types.join(' '));
      assert.ok(
        firstAccepted > 0 && firstAccepted < secondTask,
        `the assignment in the first task: ${types.join(' ')}`,
      );
    } finally {
      await client.connection.close();
    }
  });

  it('answers with what the node must stop, read in the trip that writes the hand-off', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    // A job the node held, cancelled without its agent confirming: its attempt ended asking for a kill.
    const stale = await submit(key);
    assert.equal((await pollOne(node))?.job_id, stale.job_id);
    await ok('/compute/jobs/cancel', { job_id: stale.job_id }, key);
    await waitForJob(key, stale.job_id, inState('cancelled'), 10_000);

    const poll = await waitingPoll(node);
    const handedBefore = await claimsBy('handed');
    const job = await submit(key);
    const answer = await poll.done;
    assert.equal((await claimsBy('handed')) - handedBefore, 1, 'handed');
    assert.deepEqual(
      [answer.jobs.map((j) => j.job_id), answer.cancel],
      [[job.job_id], [stale.job_id]],
      'the handed job, and the cancelled one to stop',
    );
    await ok('/compute/nodes/result', resultOf(node, answer.jobs[0], 0), node.nodeKey);
  });

  it('is offered, not handed, to a poll whose labels it does not match or whose node has a capacity to fit', async () => {
    const { key } = await newWorkspace();
    const other = await registerNode(key, { pool: 'cpu' }, 'other');
    const sized = await ok(
      '/compute/nodes/register',
      { name: 'sized', labels: { pool: 'gpu' }, capacity: { cpu: 4, memoryMb: 4096 } },
      key,
    );
    const otherPoll = await waitingPoll(other, 4);
    const sizedPoll = await waitingPoll({ nodeId: sized.nodeId, nodeKey: sized.apiKey });
    const handedBefore = await claimsBy('handed');

    const job = await submit(key, { selector: { pool: 'gpu' } });
    const answer = await sizedPoll.done;
    assert.deepEqual(
      answer.jobs.map((j) => j.job_id),
      [job.job_id],
      'claimed by the node it fits',
    );
    assert.equal((await claimsBy('handed')) - handedBefore, 0, 'nothing handed');
    assert.deepEqual((await otherPoll.done).jobs, [], 'the other node’s poll ran out empty');
  });
});
