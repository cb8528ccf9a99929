import type { Knex } from 'knex';
import { assignmentAllowance } from '../auth/quotas';
import { applyProjection, snapshotColumns } from '../jobs/projection';
import { type Job, jobFromRow } from '../jobs/record';
import { AppError } from '../shared/errors';
import { newId } from '../shared/ids';
import { type JobWorkflowClient, WorkflowClosedError } from '../temporal/job-workflow-client';
import type { JobSnapshot } from '../../workflows/definitions';

export interface Assignment {
  job: Job;
  leaseId: string;
}

/**
 * Takes the best claimable job for an agent: highest priority, then oldest, matching its labels.
 * The row stays locked (SKIP LOCKED, so other pollers pass over it) while the job's workflow
 * decides through the `assign` Update; a refusal (cancelled meanwhile) moves on to the next row.
 *
 * Once the workflow has assigned the job, the assignment is answered at once and the read model
 * commits behind it: the workflow is the truth, and whoever asks the read model whether a node
 * holds the job (heartbeat, log push, artifact upload) first waits on the row lock this claim
 * holds until its commit. Should that commit fail, the workflow's own projection repairs the row.
 */
export async function claimOne(
  db: Knex,
  workflows: JobWorkflowClient,
  agent: { id: string; workspace_id: string; labels: Record<string, string>; registered_with_key_id: string | null; key_has_quotas?: boolean },
  skip: string[],
  onLateFailure: (err: unknown, jobId: string) => void,
): Promise<Assignment | null> {
  for (;;) {
    let answer: (a: Assignment) => void = () => undefined;
    const assigned = new Promise<Assignment>((resolve) => (answer = resolve));
    const claim = db.transaction(async (trx) => {
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
      let snapshot: JobSnapshot;
      try {
        snapshot = await workflows.assign(row.id, { leaseId, agentId: agent.id });
      } catch (err) {
        const refused = err instanceof WorkflowClosedError || (err instanceof AppError && err.code === 'job.invalid_state');
        if (!refused) throw err;
        skip.push(row.id);
        return 'refused' as const;
      }
      answer({ job: jobFromRow({ ...row, ...snapshotColumns(snapshot) }), leaseId });
      await applyProjection(trx, { snapshot, workspaceId: agent.workspace_id, attemptEnds: [] });
      return 'assigned' as const;
    });
    // The answer wins the race whenever there is one: it is given before the projection starts.
    const outcome = await Promise.race([assigned, claim]);
    if (outcome === 'refused') continue;
    if (outcome === null) return null;
    if (outcome === 'assigned') return assigned;
    claim.catch((err) => onLateFailure(err, outcome.job.id));
    return outcome;
  }
}
