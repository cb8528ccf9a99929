import type { Knex } from 'knex';
import { notAssigned, notFound } from '../shared/errors';
import { JOB_STATES, type JobState, isLive } from '../../workflows/definitions';

/** The states in which a lease can hold a job, for queries; the rule itself is `isLive`. */
export const LIVE_STATES: readonly JobState[] = JOB_STATES.filter(isLive);

/** Whether `leaseId` holds the job this row describes, for `nodeId` when one is named. */
export const holdsLease = (job: { state: JobState; lease_id: string | null; agent_id: string | null }, leaseId: string, nodeId?: string): boolean =>
  isLive(job.state) && job.lease_id === leaseId && (nodeId === undefined || job.agent_id === nodeId);

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
  const job = await (q.lock === 'update' ? query.forUpdate() : query.forShare()).first();
  if (!job) throw notFound('job');
  if (!holdsLease(job, q.leaseId, q.nodeId)) throw notAssigned();
  return job;
}
