import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { revokeNodeKeys } from '../auth/api-keys';
import { auditBy } from '../auth/authorize';
import type { CredentialCache } from '../auth/credential-cache';
import type { Principal } from '../auth/principal';
import { appendAudit } from '../audit/log';
import { queuedChannelOf } from '../db/channels';
import { type JobWorkflowClient, WorkflowClosedError } from '../temporal/job-workflow-client';

export interface RemovedNode {
  id: string;
  workspace_id: string;
  name: string;
  pool: string;
  region: string | null;
}

/**
 * What a drain or a removal does beyond its own row: marks agents removed with their keys revoked
 * and audited, and wakes what waits on a node (its long polls, the runs of the jobs it runs).
 */
export function nodeRemoval({
  db,
  workflows,
  credentials,
  log,
}: {
  db: Knex;
  workflows: JobWorkflowClient;
  credentials: CredentialCache;
  log: Logger;
}) {
  /** Wakes the node's waiting long polls, naming it: only its own polls wake (src/agents/poll-waiters.ts). */
  async function wakePolls(node: Pick<RemovedNode, 'id' | 'workspace_id' | 'pool' | 'region'>): Promise<void> {
    const [channel, queue] = queuedChannelOf(node);
    await db.raw('SELECT pg_notify(?, ?)', [channel, `${queue} node:${node.id}`]);
  }

  /**
   * After a drain or a removal: wakes the node's long polls (a draining node's poll answers at
   * once, empty; a removed node's finds it gone) and asks the run of each job it runs to check on
   * it now rather than at its next liveness check (a drain deadline, a removal).
   */
  async function wake(node: RemovedNode): Promise<void> {
    await wakePolls(node);
    const agentId = node.id;
    const running = await db('job_attempts').where({ agent_id: agentId }).whereNull('ended_at').pluck('job_id');
    await Promise.all(
      running.map((jobId: string) =>
        workflows.recheckAgent(jobId).catch((err) => {
          if (!(err instanceof WorkflowClosedError))
            log.warn({ err, jobId, agentId }, 'could not ask a job to recheck its agent');
        }),
      ),
    );
  }

  /**
   * Marks the still registered agents `which` selects removed, revokes their node keys and writes
   * one `agent.deregister` entry each, in the caller's transaction. The row stays: attempts and
   * the audit log name it.
   */
  async function markRemoved(
    trx: Knex.Transaction,
    principal: Principal,
    which: Knex.QueryBuilder,
    details: Record<string, unknown> = {},
  ): Promise<RemovedNode[]> {
    const removed: RemovedNode[] = await which
      .whereNull('deregistered_at')
      .update({ deregistered_at: trx.fn.now() })
      .returning(['id', 'workspace_id', 'name', 'pool', 'region']);
    for (const node of removed) {
      await revokeNodeKeys(trx, node.id);
      await appendAudit(trx, {
        ...auditBy(principal),
        action: 'agent.deregister',
        target: { type: 'agent', id: node.id },
        details: { name: node.name, ...details },
      });
    }
    return removed;
  }

  return {
    wakePolls,
    wake,
    markRemoved,

    /**
     * Inside a member's removal: removes, as a deregistration does, every agent of the workspace
     * that was registered through that user's credentials (their session, their keys or tokens).
     * Agents registered with an operator's or the workspace's own keys stay. Call `wakeRemoved`
     * with the answer once the transaction has committed.
     */
    removeRegisteredBy(trx: Knex.Transaction, principal: Principal, userId: string): Promise<RemovedNode[]> {
      const registered = trx('agents')
        .where({ workspace_id: principal.workspaceId })
        .where((q) =>
          q
            .where({ registered_by_user_id: userId })
            .orWhereIn(
              'registered_with_key_id',
              trx('api_keys').where({ workspace_id: principal.workspaceId, user_id: userId }).select('id'),
            ),
        );
      return markRemoved(trx, principal, registered, { reason: 'member.remove', userId });
    },

    /** After the removal committed: every instance refuses the node keys, each node's jobs are requeued now. */
    async wakeRemoved(nodes: RemovedNode[]): Promise<void> {
      if (nodes.length === 0) return;
      await credentials.settle();
      await Promise.all(nodes.map((node) => wake(node)));
    },
  };
}
