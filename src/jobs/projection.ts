import type { Knex } from 'knex';
import type { ProjectJobInput } from '../../activities/types';
import { NOTIFY } from '../db/channels';

/**
 * Writes a workflow snapshot into the read model. Idempotent and order-safe: a snapshot older
 * than the row's version changes nothing, attempt ends only fill what is still empty. Both the
 * workflow's projection activity and the API's hot path (assignment, result) call it. Returns the
 * row as written, or undefined when the row already had this version or a newer one.
 */
export async function applyProjection(db: Knex | Knex.Transaction, input: ProjectJobInput) {
  // Inside a caller's transaction (the claim), no savepoint: two round trips fewer on the hot path.
  return db.isTransaction ? write(db as Knex.Transaction, input) : db.transaction((trx) => write(trx, input));
}

async function write(trx: Knex.Transaction, { snapshot: s, workspaceId, attemptEnds }: ProjectJobInput) {
  const [row] = await trx('jobs')
    .where({ id: s.jobId })
    .where('version', '<', s.version)
    .update({
      state: s.state,
      attempt: s.attempt,
      lease_id: s.leaseId,
      agent_id: s.agentId,
      started_at: s.startedAt,
      finished_at: s.finishedAt,
      exit_code: s.exitCode,
      runtime_ms: s.runtimeMs,
      failure_reason: s.failureReason,
      error: s.error,
      available_at: s.availableAt,
      version: s.version,
      workflow_started: true,
    })
    .returning('*');
  if (s.leaseId && s.agentId) {
    await trx('job_attempts')
      .insert({ lease_id: s.leaseId, job_id: s.jobId, attempt: s.attempt, agent_id: s.agentId, assigned_at: s.startedAt })
      .onConflict('lease_id')
      .ignore();
  }
  for (const end of attemptEnds) {
    await trx('job_attempts')
      .where({ lease_id: end.leaseId })
      .update({
        ended_at: trx.raw('coalesce(ended_at, now())'),
        end_reason: trx.raw('coalesce(end_reason, ?)', [end.reason]),
        kill_requested: trx.raw('kill_requested OR ?', [end.kill]),
        result: trx.raw('coalesce(result, ?::jsonb)', [end.result ? JSON.stringify(end.result) : null]),
      });
  }
  if (row) {
    // Delivered on commit: SSE readers learn the state, idle agents learn of claimable work.
    await trx.raw('SELECT pg_notify(?, ?)', [NOTIFY.jobState, s.jobId]);
    if (s.state === 'QUEUED' && Date.parse(s.availableAt) <= Date.now()) {
      await trx.raw('SELECT pg_notify(?, ?)', [NOTIFY.jobQueued, workspaceId]);
    }
  }
  return row as Record<string, unknown> | undefined;
}
