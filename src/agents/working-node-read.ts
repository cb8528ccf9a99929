import { prepared } from '../db/prepared';
import type { PollingNode } from './poll-run';

/**
 * A node's read for its agent's work calls (a poll's claims, a log push): the fields a poll keeps
 * of the row, whether the node was removed, and whether the key it registered with has quotas (a
 * claim then takes the quota lock). Prepared: an idle fleet's nodes each run it once per claim
 * bound, about a hundred times a second across 10 000 agents, and a log flood once per push.
 */
export const workingNodeRead = prepared<PollingNode & { deregistered_at: Date | null }>(
  'agents_working_node_read',
  `SELECT g.id, g.workspace_id, g.labels, g.pool, g.region, g.registered_with_key_id, g.drain, g.capacity,
          g.deregistered_at, k.quotas IS NOT NULL AS key_has_quotas
   FROM agents g
   LEFT JOIN api_keys k ON k.id = g.registered_with_key_id
   WHERE g.id = $1 AND g.workspace_id = $2`,
);
