import DataLoader from 'dataloader';
import type { Knex } from 'knex';

// The heartbeats of idle nodes (every heartbeat of a waiting fleet: 10 000 agents send 333 a
// second) stamped in batches: one statement per window instead of one transaction per heartbeat.
// A stamp does not wait for the disk: a crash of the database loses at most its last fraction of
// a second of stamps, which only makes a node look silent for that long against a loss clock of
// AGENT_LOST_AFTER_MS; the node's next heartbeat stamps it again.

/** How long a heartbeat waits for others to share its statement. */
const WINDOW_MS = 20;
const BATCH_MAX = 1000;

const STAMP = `WITH c AS (SELECT set_config('synchronous_commit', 'off', true)
  ), u AS (
    UPDATE agents g SET last_heartbeat_at = now()
    FROM unnest(?::text[], ?::text[]) AS t(id, workspace_id)
    WHERE g.id = t.id AND g.workspace_id = t.workspace_id AND g.deregistered_at IS NULL
    RETURNING g.id, g.workspace_id, g.drain)
  SELECT u.*, (SELECT count(*) FROM c) AS relaxed FROM u`;

export interface LivenessStamps {
  /** Stamps the node's heartbeat; its drain flag, or null when no such node of the workspace is left. */
  stamp(nodeId: string, workspaceId: string): Promise<{ drain: boolean } | null>;
}

export function livenessStamps(db: Knex): LivenessStamps {
  const loader = new DataLoader<string, { drain: boolean } | null>(
    async (keys) => {
      const pairs = keys.map((k) => k.split(' '));
      const { rows } = await db.raw(STAMP, [pairs.map(([id]) => id), pairs.map(([, ws]) => ws)]);
      const found = new Map<string, { drain: boolean }>();
      for (const r of rows as Array<{ id: string; workspace_id: string; drain: boolean }>)
        found.set(`${r.id} ${r.workspace_id}`, { drain: r.drain });
      return keys.map((k) => found.get(k) ?? null);
    },
    { cache: false, maxBatchSize: BATCH_MAX, batchScheduleFn: (run) => setTimeout(run, WINDOW_MS) },
  );
  return { stamp: (nodeId, workspaceId) => loader.load(`${nodeId} ${workspaceId}`) };
}
