// temporal: dev, server
import { suiteWorkflows } from '../support/jobs-service';
import assert from 'node:assert/strict';
import { suiteClient } from '../support/temporal-client';
import { Connection } from '@temporalio/client';
import type { JobWorkflowClient } from '../../src/temporal/job-workflow-client';
import { waitFor } from '../support/agents';
import { testEnv, OUR_SESSIONS } from '../support/env';
import { login } from '../support/auth';
import {
  heartbeatInBackground,
  heldJob,
  newWorkspace,
  ok,
  pollOne,
  post,
  registerNode,
  resultOf,
  retrieve,
  submit,
} from '../support/http';
import { v0, v0ok } from '../support/v0';

// Each transition runs the workflow's Update, then writes its answer into the read model. Here the
// API "crashes" between the two: the test runs the Update itself and writes nothing, leaving the
// row behind its workflow, then shows the path that repairs it, as a real client or the
// reconciler would take it.
describe('a crash between a transition and its write', () => {
  let connection: Connection;
  let workflows: JobWorkflowClient;
  before(async () => {
    connection = await Connection.connect({ address: testEnv().config.temporal.address! });
    workflows = suiteWorkflows(await suiteClient(connection));
  });
  after(() => connection.close());

  const db = () => testEnv().db;
  const transitions = () => testEnv().service.services!.transitions;
  const rowOf = (jobId: string) => db()('jobs').where({ id: jobId }).first();
  /** The reconciler's passes, as its periodic timers run them, on rows of any age. */
  const sweep = async (closedSince = new Date(Date.now() - 60_000)) =>
    (await transitions().releaseExpiredReservations()).repaired +
    (await transitions().repairBehind({ silentForMs: 0, closedSince })).repaired;

  /** A queued job reserved by `agentId` and assigned by its workflow, with no write after. */
  async function assignedBehind(key: string, agentId: string) {
    const sub = await submit(key);
    await db()('jobs')
      .where({ id: sub.job_id })
      .update({ claimed_by: agentId, claimed_until: db().raw("now() - interval '1 minute'") });
    const { snapshot } = await workflows.assign(sub.job_id, { leaseId: `lease_crash_${sub.job_id}`, agentId });
    assert.equal(snapshot.state, 'RUNNING');
    assert.equal((await rowOf(sub.job_id)).state, 'QUEUED', 'the row is behind');
    return { jobId: sub.job_id as string, leaseId: snapshot.leaseId! };
  }

  it('an assignment: a poll the workflow refuses repairs the row, and hands out nothing', async () => {
    const { key } = await newWorkspace();
    const first = await registerNode(key);
    const { jobId, leaseId } = await assignedBehind(key, first.nodeId);
    const other = await registerNode(key);
    assert.equal(await pollOne(other, 0), undefined, 'the job is not handed out twice');
    const row = await rowOf(jobId);
    assert.equal(row.state, 'RUNNING');
    assert.equal(row.lease_id, leaseId);
    assert.equal(row.agent_id, first.nodeId);
    assert.ok(
      await db()('job_attempts').where({ lease_id: leaseId, agent_id: first.nodeId }).first(),
      'the attempt is recorded',
    );
  });

  it('an assignment nobody polls again: the reconciler repairs the row and clears the reservation', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const { jobId, leaseId } = await assignedBehind(key, node.nodeId);
    assert.ok((await sweep()) >= 1);
    const row = await rowOf(jobId);
    assert.deepEqual([row.state, row.lease_id, row.claimed_by, row.claimed_until], ['RUNNING', leaseId, null, null]);
    // The agent that got the answer may go on: its heartbeat keeps the job.
    const beat = await ok('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [jobId] }, node.nodeKey);
    assert.deepEqual(beat.cancel, []);
  });

  it('a result: the agent repeats its report, which repairs the row and is answered the same', async () => {
    const { key, node, job } = await heldJob();
    const { snapshot } = await workflows.result(job.job_id, {
      leaseId: job.leaseId,
      agentId: node.nodeId,
      exitCode: 0,
      runtimeMs: 4,
    });
    assert.equal(snapshot.state, 'SUCCEEDED');
    assert.equal((await rowOf(job.job_id)).state, 'RUNNING', 'the row is behind');
    const again = await ok('/compute/nodes/result', resultOf(node, job, 0, 4), node.nodeKey);
    assert.equal(again.state, 'succeeded');
    assert.equal(again.runtimeMs, 4);
    const attempt = await db()('job_attempts').where({ lease_id: job.leaseId }).first();
    assert.equal(attempt.end_reason, 'result');
    assert.equal(attempt.result.exitCode, 0);
    assert.equal((await retrieve(key, job.job_id)).state, 'succeeded');
    // Any other lease or node is still refused.
    const foreign = await registerNode(key);
    const stray = await post('/compute/nodes/result', resultOf(foreign, job, 0), foreign.nodeKey);
    assert.equal(stray.status, 409);
  });

  it('a result whose agent is gone as well: the reconciler repairs the row from the closed run', async () => {
    const { key, node, job } = await heldJob();
    await workflows.result(job.job_id, { leaseId: job.leaseId, agentId: node.nodeId, exitCode: 3, runtimeMs: 4 });
    assert.equal((await rowOf(job.job_id)).state, 'RUNNING', 'the row is behind');
    assert.ok((await sweep()) >= 1);
    const repaired = await retrieve(key, job.job_id);
    assert.equal(repaired.state, 'failed');
    assert.equal(repaired.exitCode, 3);
    assert.equal((await db()('job_attempts').where({ lease_id: job.leaseId }).first()).end_reason, 'result');
  });

  it('a result repaired late ends its attempt when the run decided it: the delay is not billed', async () => {
    const { node, job } = await heldJob();
    const decidedAt = Date.now();
    await workflows.result(job.job_id, { leaseId: job.leaseId, agentId: node.nodeId, exitCode: 0, runtimeMs: 4 });
    // The write comes 5 s later (the reconciler's); the meter ticks every 2 s meanwhile.
    await new Promise((r) => setTimeout(r, 5000));
    const repairedAt = Date.now();
    assert.ok((await sweep()) >= 1);
    const attempt = await db()('job_attempts')
      .where({ lease_id: job.leaseId })
      .first('assigned_at', 'ended_at', 'end_reason');
    assert.equal(attempt.end_reason, 'result');
    const endedAt = new Date(attempt.ended_at).getTime();
    assert.ok(
      Math.abs(endedAt - decidedAt) <= 1000,
      `ended ${endedAt - decidedAt} ms after the decision, not ${repairedAt - decidedAt} ms after, when the write came`,
    );
    // What the ticks counted while the row was behind is taken back: the attempt's entries add up to its runtime.
    const [{ cpu }] = await db()('usage_ledger').where({ job_id: job.job_id }).sum('cpu_seconds as cpu');
    const runtime = (endedAt - new Date(attempt.assigned_at).getTime()) / 1000;
    assert.ok(Math.abs(Number(cpu) - runtime) < 0.01, `${cpu} CPU-seconds billed for a ${runtime} s attempt of 1 CPU`);
  });

  it('a cancel of a queued job: the client repeats it and gets 409 with the row repaired; unrepeated, the reconciler finds it', async () => {
    const { key } = await newWorkspace();
    const repeated = await submit(key);
    const abandoned = await submit(key);
    const since = new Date(Date.now() - 1000);
    for (const sub of [repeated, abandoned])
      assert.equal((await workflows.cancel(sub.job_id)).snapshot.state, 'CANCELLED');
    assert.equal((await rowOf(repeated.job_id)).state, 'QUEUED', 'the row is behind');

    const again = await post('/compute/jobs/cancel', { job_id: repeated.job_id }, key);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'job.invalid_state');
    assert.equal((await retrieve(key, repeated.job_id)).state, 'cancelled');

    // Visibility is eventually consistent: the sweep finds the run once it is listed.
    await waitFor(
      'the reconciler to find the cancelled run',
      async () => (await sweep(since)) >= 0 && (await rowOf(abandoned.job_id)).state === 'CANCELLED',
    );
  });

  it('a cancel after the job ended but before its run closed: /v0 answers 200 with the job as it ended, /api 409', async () => {
    const s = await login();
    const created = await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'sleep 60', timeoutSeconds: 3 },
    });
    const node = await registerNode(s.token);
    assert.equal((await pollOne(node))!.job_id, created.id);
    // The agent stays alive, so the job's end is its timeout, not an agent loss.
    const beat = heartbeatInBackground(node, [created.id]);
    // The run writes the hand-out too (projectJob, scheduled with the Update's answer): let it finish first.
    const handle = (await suiteClient(connection)).workflow.getHandle(created.id);
    await waitFor(
      'the run to wait on its timers alone',
      async () => ((await handle.describe()).raw.pendingActivities ?? []).length === 0,
    );
    // A timeout is the run's own transition: it writes it (projectJob, which takes the row FOR
    // NO KEY UPDATE) before it closes. The weakest row lock that holds it there, ended but open,
    // is FOR SHARE, which lets the agent's heartbeats (FOR SHARE too) through.
    const lock = await db().transaction();
    const waitingOnRow = async () =>
      Number(
        (
          await db().raw(
            `select count(*) from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%update jobs%' and ${OUR_SESSIONS}`,
          )
        ).rows[0].count,
      );
    try {
      await lock('jobs').where({ id: created.id }).forShare().first();
      await waitFor('the run to time the job out and wait on the row', async () => (await waitingOnRow()) >= 1, 15_000);
      assert.equal((await handle.describe()).status.name, 'RUNNING', 'the run is still open');

      let answered = false;
      const cancel = v0('POST', `/jobs/${created.id}:cancel`, { token: s.token }).finally(() => (answered = true));
      // The cancel repairs the row, so it waits on the lock as well (an answer now would be the bug).
      await waitFor('the cancel to answer or wait on the row', async () => answered || (await waitingOnRow()) >= 2);
      await lock.commit();
      const res = await cancel;
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual([res.body.state, res.body.failureReason], ['TIMED_OUT', 'timeout']);
    } finally {
      if (!lock.isCompleted()) await lock.rollback();
      await beat.stop();
    }
    assert.equal((await post('/compute/jobs/cancel', { job_id: created.id }, s.token)).body.code, 'job.invalid_state');
    assert.equal((await rowOf(created.id)).state, 'TIMED_OUT');
  });

  it('a cancel of a running job: a repeated cancel writes CANCELLING and the kill the agent is told', async () => {
    const { key, node, job } = await heldJob();
    assert.equal((await workflows.cancel(job.job_id)).snapshot.state, 'CANCELLING');
    const again = await ok('/compute/jobs/cancel', { job_id: job.job_id }, key);
    assert.equal(again.state, 'cancelling');
    const polled = await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 0 }, node.nodeKey);
    assert.deepEqual(polled.cancel, [job.job_id], 'the agent is told to stop it');
  });
});
