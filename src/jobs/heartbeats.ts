import type { Knex } from 'knex';
import { type AskingNode, askableBy, holdsLease } from './lease';

/**
 * A node's heartbeat, as the jobs it names see it: stamps their attempts (on the database clock,
 * which liveness measures with) and answers which of them the node's lease still holds and should
 * keep running; any other it is to stop. In the caller's transaction, with the node's own stamp.
 */
export async function heartbeatAttempts(
  trx: Knex.Transaction,
  node: AskingNode,
  running: string[],
): Promise<Set<string>> {
  // Waits for a claim of these jobs still committing: its answer may have reached the agent first.
  // Only rows the node may ask about, as a log push (a managed-pool agent's: those it holds or is
  // being handed, of any workspace): a node cannot lock other workspaces' jobs by naming them. A
  // workspace's agent waits on any of its workspace's, as a plain node's claim reserves its rows
  // in the transaction that writes them (src/jobs/dispatch.ts): unseen until it commits.
  await trx('jobs').whereIn('id', running).where(askableBy(node)).forShare().select('id');
  await trx('job_attempts')
    .where({ agent_id: node.id })
    .whereIn('job_id', running)
    .whereNull('ended_at')
    .update({ last_heartbeat_at: trx.fn.now() });
  // Kept: jobs this node's lease still holds, unless a cancel asks the agent to stop them.
  const held = await trx('job_attempts as a')
    .join('jobs as j', (j) => j.on('j.id', 'a.job_id').andOn('j.lease_id', 'a.lease_id'))
    .where({ 'a.agent_id': node.id })
    .whereIn('a.job_id', running)
    .whereNull('a.ended_at')
    .select('j.state', 'j.lease_id', 'j.agent_id', 'a.job_id', 'a.lease_id as attempt_lease');
  return new Set<string>(
    held.filter((h) => h.state !== 'CANCELLING' && holdsLease(h, h.attempt_lease, node.id)).map((h) => h.job_id),
  );
}
