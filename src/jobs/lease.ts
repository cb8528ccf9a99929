import type { Knex } from 'knex';
import { notAssigned, notFound } from '../shared/errors';
import { JOB_STATES, type JobState, isLive } from '../../workflows/definitions';

/** The states in which a lease can hold a job, for queries; the rule itself is `isLive`. */
export const LIVE_STATES: readonly JobState[] = JOB_STATES.filter(isLive);

/** Whether `leaseId` holds the job this row describes, for `nodeId` when one is named. */
export const holdsLease = (
  job: { state: JobState; lease_id: string | null; agent_id: string | null },
  leaseId: string,
  nodeId?: string,
): boolean => isLive(job.state) && job.lease_id === leaseId && (nodeId === undefined || job.agent_id === nodeId);

/** A node as the jobs it asks about see it: its own workspace, and which pool it serves. */
export interface AskingNode {
  id: string;
  workspace_id: string;
  pool: string;
}

/**
 * Where-clause (for the `jobs` row under `alias`) of the jobs a node may ask about as their
 * holder (log pushes, results). A workspace's agent: any job of its workspace, so a lease it does
 * not hold is 409 and another workspace's job 404, as ever. A managed-pool agent serves every
 * workspace and is trusted with none: only a job it holds, is being handed (its reservation), or
 * held under one of its own leases; any other is not found to it, whichever workspace it is in.
 */
export const askableBy =
  (node: AskingNode, alias = 'jobs') =>
  (q: Knex.QueryBuilder) => {
    if (node.pool !== 'managed') return q.where(`${alias}.workspace_id`, node.workspace_id);
    return q
      .where(`${alias}.agent_id`, node.id)
      .orWhere(`${alias}.claimed_by`, node.id)
      .orWhereExists((held) =>
        held
          .select(1)
          .from('job_attempts as held')
          .whereRaw('held.job_id = ??', [`${alias}.id`])
          .where('held.agent_id', node.id),
      );
  };

/** askableBy's rule as SQL, for a statement that reads the node's row `g` beside the job `j`. */
export const askableByRowSql = (j: string, g: string) =>
  `CASE WHEN ${g}.pool = 'managed'
        THEN ${j}.agent_id = ${g}.id OR ${j}.claimed_by = ${g}.id
             OR EXISTS (SELECT 1 FROM job_attempts held WHERE held.job_id = ${j}.id AND held.agent_id = ${g}.id)
        ELSE ${j}.workspace_id = ${g}.workspace_id END`;

/**
 * The job's row, locked, if `leaseId` holds it (for `nodeId`, when named): 404 for a job outside
 * `workspaceId`, 409 `job.not_assigned` for a lease that does not hold it. The lock waits out a
 * claim still committing, whose answer may have reached the agent before its row did. `update`
 * takes it exclusively, for writers that order their work by it (log pushes).
 */
export async function requireLiveLease(
  trx: Knex.Transaction,
  q: { jobId: string; leaseId: string; nodeId?: string; workspaceId?: string; lock: 'share' | 'update' },
) {
  const query = trx('jobs').where({ id: q.jobId, ...(q.workspaceId && { workspace_id: q.workspaceId }) });
  const job = await (q.lock === 'update' ? query.forNoKeyUpdate() : query.forShare()).first();
  if (!job) throw notFound('job');
  if (!holdsLease(job, q.leaseId, q.nodeId)) throw notAssigned();
  return job;
}
