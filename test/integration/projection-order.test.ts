// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { applyProjection } from '../../src/jobs/projection';
import type { AttemptEnd, JobSnapshot } from '../../workflows/definitions';
import { testEnv } from '../support/env';
import { newWorkspace, ok, registerNode, submit } from '../support/http';

// The read model takes a run's snapshots in any order (src/jobs/projection.ts). Here the run's
// own end of an attempt (its timeout, its loss) is written before the API's write of the
// attempt's hand-out: the API died after the Update, or was slow, or a repair read the run just
// before it moved on. No attempt may stay open, or the meter bills it for ever and the job looks
// held by its agent.

/** A job no node takes (its run waits and writes nothing meanwhile), and its hand-out's snapshot. */
async function unclaimedJob() {
  const db = testEnv().db;
  const { key, workspaceId } = await newWorkspace();
  const node = await registerNode(key);
  const { job_id: jobId } = (await submit(key, { selector: { queue: 'nobody' } })) as { job_id: string };
  const row = await db('jobs').where({ id: jobId }).first();
  const leaseId = `lease_projection_order_${jobId}`;
  const startedAt = new Date(Date.now() - 3000).toISOString();
  const handOut: JobSnapshot = {
    jobId,
    state: 'RUNNING',
    attempt: 1,
    leaseId,
    agentId: node.nodeId,
    startedAt,
    finishedAt: null,
    exitCode: null,
    runtimeMs: null,
    failureReason: null,
    error: null,
    availableAt: new Date(row.available_at).toISOString(),
    version: Number(row.version) + 1,
  };
  /** The run's own later write (`changes` to the hand-out, a version on), then the hand-out's, late. */
  const laterThenHandOut = async (changes: Partial<JobSnapshot>, attemptEnds: AttemptEnd[]) => ({
    later: (await applyProjection(db, {
      workspaceId,
      snapshot: { ...handOut, ...changes, version: handOut.version + 1 },
      attemptEnds,
    })) as { state?: string } | undefined,
    late: await applyProjection(db, { workspaceId, snapshot: handOut, attemptEnds: [] }),
  });
  return { db, key, node, jobId, leaseId, startedAt, laterThenHandOut };
}

describe('an attempt whose end is written before its hand-out', () => {
  it('is written ended, and the late hand-out changes nothing', async () => {
    const { db, key, node, jobId, leaseId, startedAt, laterThenHandOut } = await unclaimedJob();
    const timedOutAt = new Date(Date.now() - 1000).toISOString();
    const { later, late } = await laterThenHandOut(
      { state: 'TIMED_OUT', finishedAt: timedOutAt, runtimeMs: 2000, failureReason: 'timeout' },
      [{ leaseId, at: timedOutAt, reason: 'timeout', kill: true }],
    );
    assert.equal(later?.state, 'TIMED_OUT');
    // The hand-out's own write, late: older than the row, it changes nothing.
    assert.equal(late, undefined);

    const attempt = await db('job_attempts').where({ lease_id: leaseId }).first();
    assert.equal(attempt.agent_id, node.nodeId);
    assert.equal(attempt.end_reason, 'timeout');
    assert.equal(attempt.kill_requested, true);
    assert.equal(new Date(attempt.ended_at).toISOString(), timedOutAt, "the run's moment, not the write's");
    assert.equal(new Date(attempt.assigned_at).toISOString(), startedAt);
    // Its run still thinks the job queued: cancelled, it ends (its own write is older than the row's).
    await ok('/compute/jobs/cancel', { job_id: jobId }, key);
  });

  it('by a requeue: the late hand-out leaves no attempt open for the meter to bill', async () => {
    const { db, key, jobId, leaseId, laterThenHandOut } = await unclaimedJob();
    const lostAt = new Date(Date.now() - 1000).toISOString();
    // The run found the attempt's agent silent and queued the job again: the write ends a lease
    // it has no row for (the hand-out's write had not landed). Then the hand-out's, older than the row.
    const { later, late } = await laterThenHandOut(
      { state: 'QUEUED', attempt: 2, leaseId: null, agentId: null, startedAt: null, availableAt: lostAt },
      [{ leaseId, at: lostAt, reason: 'agent_lost', kill: true }],
    );
    assert.equal(later?.state, 'QUEUED');
    assert.equal(late, undefined);
    assert.deepEqual(await db('job_attempts').where({ job_id: jobId }).whereNull('ended_at').select('lease_id'), []);
    const row = await db('jobs').where({ id: jobId }).first('state', 'attempt', 'lease_id');
    assert.deepEqual(row, { state: 'QUEUED', attempt: 2, lease_id: null });
    await ok('/compute/jobs/cancel', { job_id: jobId }, key);
  });
});
