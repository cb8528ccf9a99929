import type { Knex } from 'knex';
import { assignmentAllowance } from '../auth/quotas';
import { applyProjection } from '../jobs/projection';
import { type Job, jobFromRow } from '../jobs/record';
import { AppError } from '../shared/errors';
import { newId } from '../shared/ids';
import { type JobWorkflowClient, WorkflowClosedError } from '../temporal/job-workflow-client';

export interface Assignment {
  job: Job;
  leaseId: string;
}

/**
 * Takes the best claimable job for an agent: highest priority, then oldest, matching its labels.
 * The row stays locked (SKIP LOCKED, so other pollers pass over it) while the job's workflow
 * decides through the `assign` Update; a refusal (cancelled meanwhile) moves on to the next row.
 */
export async function claimOne(
  db: Knex,
  workflows: JobWorkflowClient,
  agent: { id: string; workspace_id: string; labels: Record<string, string>; registered_with_key_id: string | null; key_has_quotas?: boolean },
  skip: string[],
): Promise<Assignment | null> {
  for (;;) {
    const outcome = await db.transaction(async (trx) => {
      // The quotas of the key the node registered with bound what all its nodes hold together.
      const allowance = agent.key_has_quotas ? await assignmentAllowance(trx, agent.registered_with_key_id) : null;
      if (allowance?.blocked) return null;
      const q = trx('jobs')
        .where({ workspace_id: agent.workspace_id, state: 'QUEUED', workflow_started: true, pool: 'self' })
        .where('available_at', '<=', trx.fn.now())
        .whereRaw('selector <@ ?::jsonb', [JSON.stringify(agent.labels)]);
      if (skip.length) q.whereNotIn('id', skip);
      if (allowance?.types) q.whereIn('type', allowance.types);
      const row = await q.orderBy([{ column: 'priority', order: 'desc' }, 'created_at', 'id']).forUpdate().skipLocked().first();
      if (!row) return null;
      const leaseId = newId('lease');
      try {
        const snapshot = await workflows.assign(row.id, { leaseId, agentId: agent.id });
        const fresh = await applyProjection(trx, { snapshot, workspaceId: agent.workspace_id, attemptEnds: [] });
        return { job: jobFromRow(fresh ?? (await trx('jobs').where({ id: row.id }).first())), leaseId };
      } catch (err) {
        const refused = err instanceof WorkflowClosedError || (err instanceof AppError && err.code === 'job.invalid_state');
        if (!refused) throw err;
        skip.push(row.id);
        return 'refused' as const;
      }
    });
    if (outcome !== 'refused') return outcome;
  }
}
