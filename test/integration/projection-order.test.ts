// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { applyProjection } from '../../src/jobs/projection';
import type { JobSnapshot } from '../../workflows/definitions';
import { testEnv } from '../support/env';
import { newWorkspace, ok, registerNode, submit } from '../support/http';

// The read model takes a run's snapshots in any order (src/jobs/projection.ts). Here the run's
// own end of an attempt (its timeout) is written before the API's write of the attempt's hand-out:
// the API died after the Update, or was slow. The attempt must still end, or the meter bills it
// for ever and the job looks held by its agent.

describe('an attempt whose end is written before its hand-out', () => {
  it('is written ended, and the late hand-out changes nothing', async () => {
    const db = testEnv().db;
    const { key, workspaceId } = await newWorkspace();
    const node = await registerNode(key);
    // A job no node takes: its run waits and writes nothing meanwhile.
    const { job_id: jobId } = (await submit(key, { selector: { queue: 'nobody' } })) as { job_id: string };
    const row = await db('jobs').where({ id: jobId }).first();
    const leaseId = `lease_projection_order_${Date.now()}`;
    const startedAt = new Date(Date.now() - 3000).toISOString();
    const base: JobSnapshot = {
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
    const timedOutAt = new Date(Date.now() - 1000).toISOString();
    const timedOut = await applyProjection(db, {
      workspaceId,
      snapshot: {
        ...base,
        state: 'TIMED_OUT',
        finishedAt: timedOutAt,
        runtimeMs: 2000,
        failureReason: 'timeout',
        version: base.version + 1,
      },
      attemptEnds: [{ leaseId, at: timedOutAt, reason: 'timeout', kill: true }],
    });
    assert.equal((timedOut as { state?: string } | undefined)?.state, 'TIMED_OUT');
    // The hand-out's own write, late: older than the row, it changes nothing.
    assert.equal(await applyProjection(db, { workspaceId, snapshot: base, attemptEnds: [] }), undefined);

    const attempt = await db('job_attempts').where({ lease_id: leaseId }).first();
    assert.equal(attempt.agent_id, node.nodeId);
    assert.equal(attempt.end_reason, 'timeout');
    assert.equal(attempt.kill_requested, true);
    assert.equal(new Date(attempt.ended_at).toISOString(), timedOutAt, "the run's moment, not the write's");
    assert.equal(new Date(attempt.assigned_at).toISOString(), startedAt);
    // Its run still thinks the job queued: cancelled, it ends (its own write is older than the row's).
    await ok('/compute/jobs/cancel', { job_id: jobId }, key);
  });
});
