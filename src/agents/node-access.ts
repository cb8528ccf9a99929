import type { Knex } from 'knex';
import { prepared } from '../db/prepared';
import { AppError, notFound } from '../shared/errors';
import type { NodeCaller } from './poll';
import type { PollingNode } from './poll-run';

// The node a caller names, read and checked: in the caller's workspace, not removed, and the
// caller's own when the caller is a node key. A result reads its node itself (`resultRead`),
// removed or not, and its lease check tells a removed node 409.

/**
 * A node's read for its agent's work calls (a poll's claims, a log push): the fields a poll keeps
 * of the row, whether the node was removed, and whether the key it registered with has quotas (a
 * claim then takes the quota lock). Prepared: an idle fleet's nodes each run it once per claim
 * bound, about a hundred times a second across 10 000 agents, and a log flood once per push.
 */
const workingNodeRead = prepared<PollingNode & { deregistered_at: Date | null }>(
  'agents_working_node_read',
  `SELECT g.id, g.workspace_id, g.labels, g.pool, g.region, g.registered_with_key_id, g.drain, g.capacity,
          g.deregistered_at, k.quotas IS NOT NULL AS key_has_quotas
   FROM agents g
   LEFT JOIN api_keys k ON k.id = g.registered_with_key_id
   WHERE g.id = $1 AND g.workspace_id = $2`,
);

/** The node, if it is in the caller's workspace and the caller may act for it. */
function nodeFor<Row extends { deregistered_at: Date | null }>(principal: NodeCaller, nodeId: string, row?: Row): Row {
  if (!row) throw notFound('node');
  if (row.deregistered_at) {
    // A poll of the removed node that began before its key was revoked: told as its key would be.
    if (principal.kind === 'node' && principal.agentId === nodeId)
      throw new AppError('auth.unauthenticated', 'This node was removed; its key no longer works');
    throw notFound('node');
  }
  if (principal.kind === 'node' && principal.agentId !== nodeId) {
    throw new AppError('auth.forbidden', 'This node key belongs to another node');
  }
  return row;
}

export function nodeAccess(db: Knex) {
  return {
    /** The node's whole row, for the rarer calls (get, drain, remove, rotate-key, another node's heartbeat). */
    async requireNode(principal: NodeCaller, nodeId: string) {
      const row = await db('agents').where({ id: nodeId, workspace_id: principal.workspaceId }).first();
      return nodeFor(principal, nodeId, row);
    },
    /** What an agent's work calls (a poll's claims, a log push) read of its node, in one prepared statement. */
    requireWorkingNode: async (principal: NodeCaller, nodeId: string) =>
      nodeFor(principal, nodeId, (await workingNodeRead(db, [nodeId, principal.workspaceId]))[0]),
  };
}
