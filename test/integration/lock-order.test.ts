// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { applyProjection } from '../../src/jobs/projection';
import { waitFor } from '../support/agents';
import { testEnv, OUR_SESSIONS } from '../support/env';
import { heldJob } from '../support/http';

// Writers of a job lock its row before its attempt; the meter locks attempts first (it takes
// them in batches, skipping those locked) and then inserts ledger entries, whose foreign key
// takes a key-share lock on the job's row. Job rows are therefore locked FOR NO KEY UPDATE,
// which a key-share lock passes: FOR UPDATE made the two wait on each other (a deadlock CI saw).
describe('lock order between the meter and an attempt end', () => {
  it('a ledger entry for a locked attempt goes in while the attempt end waits for the attempt', async () => {
    const db = testEnv().db;
    const { sub, job, workspaceId } = await heldJob();
    // The claim answers before its write commits: wait for the row and the attempt.
    const attempt = await waitFor(
      'the attempt row',
      () => db('job_attempts').where({ lease_id: job.leaseId }).first(),
      5_000,
    );
    const row = await db('jobs').where({ id: sub.job_id }).first();
    const meter = await db.transaction();
    let ending: Promise<unknown> | undefined;
    try {
      const [{ pid }] = (await meter.raw('SELECT pg_backend_pid() AS pid')).rows;
      await meter.raw('SELECT 1 FROM job_attempts WHERE lease_id = ? FOR UPDATE', [job.leaseId]);
      ending = applyProjection(db, {
        workspaceId,
        snapshot: {
          jobId: row.id,
          state: 'SUCCEEDED',
          attempt: row.attempt,
          leaseId: row.lease_id,
          agentId: row.agent_id,
          startedAt: new Date(row.started_at).toISOString(),
          finishedAt: new Date().toISOString(),
          exitCode: 0,
          runtimeMs: 1,
          failureReason: null,
          error: null,
          availableAt: new Date(row.available_at).toISOString(),
          version: Number(row.version) + 1,
        },
        attemptEnds: [{ leaseId: job.leaseId, reason: 'result', kill: false }],
      });
      ending.catch(() => undefined); // awaited below; a deadlock must not surface as unhandled first
      // The end holds the job's row and waits for the attempt the meter holds (nothing else of its
      // statement can wait on the meter).
      await waitFor(
        'the end to wait on the attempt',
        async () => {
          const { rows } = await db.raw(
            `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND ?::int = ANY(pg_blocking_pids(pid)) AND ${OUR_SESSIONS}`,
            [pid],
          );
          return rows.length > 0;
        },
        5_000,
      );
      await meter.raw(`SET LOCAL lock_timeout = '3s'`);
      await meter.raw(
        `INSERT INTO usage_ledger (workspace_id, job_id, attempt, lease_id, pool, meter_window, from_at, to_at,
                                   cpu_seconds, gpu_seconds, gb_seconds, amount_usd, period_start)
         VALUES (?, ?, ?, ?, 'self', 'tick:lock-order', ?, now(), 1, 0, 0.5, 0, now())`,
        [workspaceId, row.id, row.attempt, job.leaseId, attempt.assigned_at],
      );
      await meter.commit();
    } catch (err) {
      await meter.rollback().catch(() => undefined);
      throw err;
    }
    const written = (await ending) as { state: string } | undefined;
    assert.equal(written?.state, 'SUCCEEDED', 'the end is written once the meter lets the attempt go');
    const ended = await db('job_attempts').where({ lease_id: job.leaseId }).first();
    assert.equal(ended.end_reason, 'result');
    assert.ok(ended.ended_at);
  });
});
