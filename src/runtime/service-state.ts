import type { Knex } from 'knex';
import { agentHeardWithin } from '../agents/liveness';
import type { ServiceState } from '../metrics/registry';

// What an ops team watches that only the database knows, read when Prometheus scrapes an API
// instance: one statement per family, run together, each on an index or a small table.

/** What the gauges of src/metrics/registry.ts show at a scrape. */
export async function readServiceState(db: Knex, lostAfterMs: number): Promise<ServiceState> {
  const [queues, agents, caps, outbox] = await Promise.all([
    db.raw(
      `SELECT pool, coalesce(region, '') AS region, count(*)::int AS depth,
              coalesce(extract(epoch from now() - min(available_at) FILTER (WHERE available_at <= now())), 0)::float8 AS oldest
         FROM jobs WHERE state = 'QUEUED' AND workflow_started GROUP BY 1, 2`,
    ),
    db.raw(
      `SELECT pool, coalesce(region, '') AS region,
              CASE WHEN NOT (${agentHeardWithin('agents')}) THEN 'OFFLINE' WHEN drain THEN 'DRAINING' ELSE 'ONLINE' END AS state,
              count(*)::int AS count
         FROM agents WHERE deregistered_at IS NULL GROUP BY 1, 2, 3`,
      [lostAfterMs],
    ),
    db.raw(
      `SELECT workspace_id, (spent_usd / nullif(soft_cap_usd, 0))::float8 AS soft, (spent_usd / nullif(hard_cap_usd, 0))::float8 AS hard
         FROM billing_accounts WHERE soft_cap_usd IS NOT NULL OR hard_cap_usd IS NOT NULL`,
    ),
    db.raw(
      `SELECT count(*)::int AS n, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 AS oldest
         FROM webhook_events WHERE NOT relayed`,
    ),
  ]);
  return {
    queues: queues.rows.map((r: { pool: string; region: string; depth: number; oldest: number }) => ({
      pool: r.pool,
      region: r.region,
      depth: r.depth,
      oldestWaitSeconds: r.oldest,
    })),
    agents: agents.rows,
    caps: caps.rows.flatMap((r: { workspace_id: string; soft: number | null; hard: number | null }) => [
      ...(r.soft === null ? [] : [{ workspace: r.workspace_id, cap: 'soft' as const, usedRatio: r.soft }]),
      ...(r.hard === null ? [] : [{ workspace: r.workspace_id, cap: 'hard' as const, usedRatio: r.hard }]),
    ]),
    webhookOutbox: { unrelayed: outbox.rows[0].n, oldestSeconds: outbox.rows[0].oldest },
  };
}
