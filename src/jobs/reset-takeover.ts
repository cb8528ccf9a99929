import type { Knex } from 'knex';
import { appendAudit } from '../audit/log';
import { applyProjection } from './projection';
import { TEMPORAL_ACTOR } from './temporal-actions';
import type { AttemptEnd, ProjectJobInput, Rebase } from '../../workflows/definitions';

/** What Temporal says of a reset run: whether it is still the job's run, and the operator's reason. */
export type ResetRunOf = (workflowId: string, runId: string) => Promise<{ current: boolean; reason: string }>;

/**
 * A reset run's first write (ProjectJobInput.takeover). The run replayed from an earlier point of
 * the run it was reset from, so its numbers are behind the row's: its snapshot lands at the row's
 * next version, and as a new attempt unless it holds the attempt the row knows. The lease the row
 * still holds is fenced: that attempt ends `reset` with its agent told to stop, and its result and
 * logs are refused from then on. A run reset again since (or retried) takes nothing over.
 * Answers the offsets the run adds to its own numbers from then on.
 */
export async function takeOverFromReset(
  db: Knex,
  input: ProjectJobInput,
  run: { workflowId: string; runId: string },
  resetRunOf: ResetRunOf,
): Promise<Rebase> {
  const s = input.snapshot;
  const { current, reason } = await resetRunOf(run.workflowId, run.runId);
  if (!current) return { version: 0, attempt: 0 };
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw('SELECT version, lease_id FROM jobs WHERE id = ? FOR NO KEY UPDATE', [s.jobId]);
    const row = rows[0] as { version: number; lease_id: string | null } | undefined;
    if (!row) return { version: 0, attempt: 0 };
    const held = s.leaseId
      ? await trx('job_attempts').where({ job_id: s.jobId, lease_id: s.leaseId }).first('attempt')
      : undefined;
    const used = (await trx('job_attempts').where({ job_id: s.jobId }).max('attempt as n').first()) as {
      n: number | null;
    };
    const offsets: Rebase = {
      version: row.version + 1 - s.version,
      attempt: held ? held.attempt - s.attempt : Math.max(0, (used.n ?? 0) + 1 - s.attempt),
    };
    const fenced = row.lease_id && row.lease_id !== s.leaseId ? row.lease_id : null;
    const ends: AttemptEnd[] = [
      ...input.attemptEnds,
      ...(fenced ? [{ leaseId: fenced, reason: 'reset' as const, kill: true }] : []),
    ];
    const snapshot = { ...s, version: s.version + offsets.version, attempt: s.attempt + offsets.attempt };
    await applyProjection(trx, { snapshot, workspaceId: input.workspaceId, attemptEnds: ends });
    await appendAudit(trx, {
      workspaceId: input.workspaceId,
      actor: TEMPORAL_ACTOR,
      action: 'job.reset',
      target: { type: 'job', id: s.jobId },
      details: {
        reason,
        runId: run.runId,
        state: snapshot.state,
        attempt: snapshot.attempt,
        leaseFenced: Boolean(fenced),
      },
    });
    return offsets;
  });
}
