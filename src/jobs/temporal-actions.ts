import type { Knex } from 'knex';
import { appendAudit } from '../audit/log';
import { CANCELLED_IN_TEMPORAL, type ProjectJobInput } from '../../workflows/definitions';

// What an operator does to a job's run in Temporal (its UI, its CLI, a batch) reaches the job; the
// UI names no user, so the audit log names Temporal itself as the actor.

export const TEMPORAL_ACTOR = { type: 'system', id: 'temporal' } as const;

/**
 * The audit entry of a cancel requested in Temporal, written once, in the transaction of the
 * projection that first carries it (the run writes its own cancel: nobody waits on it).
 */
export async function auditTemporalCancel(db: Knex | Knex.Transaction, input: ProjectJobInput): Promise<void> {
  const jobId = input.snapshot.jobId;
  const seen = await db('audit_log')
    .where({ workspace_id: input.workspaceId, target_type: 'job', target_id: jobId, action: 'job.cancel' })
    .whereRaw(`details->>'reason' = ?`, [CANCELLED_IN_TEMPORAL])
    .first('id');
  if (seen) return;
  await appendAudit(db, {
    workspaceId: input.workspaceId,
    actor: TEMPORAL_ACTOR,
    action: 'job.cancel',
    target: { type: 'job', id: jobId },
    details: { reason: CANCELLED_IN_TEMPORAL, state: input.snapshot.state, attempt: input.snapshot.attempt },
  });
}
