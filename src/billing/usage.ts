import type { Knex } from 'knex';
import { AppError, notFound } from '../shared/errors';

// A workspace's usage (CONTRACT §9) read from the ledger: the entries recorded in the window
// (their `to_at` in [windowStart, windowEnd)), split by pool. Figures are summed exactly in SQL
// and rounded to the microsecond and the micro-dollar only to be rendered.

export interface UsageFigures {
  cpuSeconds: number;
  gpuSeconds: number;
  gbSeconds: number;
  estimateUsd: number;
}

export interface UsageRecord extends UsageFigures {
  windowStart: string;
  windowEnd: string;
  managed: UsageFigures;
  self: UsageFigures;
}

/** Longest window one request may sum (a year and a day). */
const MAX_WINDOW_MS = 366 * 86_400_000;

export function createUsage({ db }: { db: Knex }) {
  return {
    /** Usage in the window; each bound defaults to the current period's. */
    async read(workspaceId: string, window: { start?: Date; end?: Date }): Promise<UsageRecord> {
      const period = await db('billing_accounts')
        .where({ workspace_id: workspaceId })
        .first('current_period_start', 'current_period_end');
      if (!period) throw notFound('Workspace');
      const start = window.start ?? new Date(period.current_period_start);
      const end = window.end ?? new Date(period.current_period_end);
      const fields: Array<{ path: string; message: string }> = [];
      if (start >= end) fields.push({ path: 'windowEnd', message: 'must be after windowStart' });
      else if (end.getTime() - start.getTime() > MAX_WINDOW_MS)
        fields.push({ path: 'windowEnd', message: 'at most 366 days after windowStart' });
      if (fields.length) throw new AppError('request.invalid', 'The usage window is invalid', { fields });
      // Each part rounded to the microsecond and micro-dollar, and the totals the sums of the
      // rounded parts, in SQL's exact numerics: the record adds up as read.
      const { rows } = await db.raw(
        `WITH parts AS (
           SELECT pool, round(sum(cpu_seconds), 6) AS cpu, round(sum(gpu_seconds), 6) AS gpu, round(sum(gb_seconds), 6) AS gb,
                  CASE WHEN pool = 'self' THEN 0 ELSE round(sum(amount_usd), 6) END AS usd
           FROM usage_ledger WHERE workspace_id = ? AND to_at >= ? AND to_at < ? GROUP BY pool)
         SELECT pool, cpu::text, gpu::text, gb::text, usd::text FROM parts
         UNION ALL SELECT 'total', coalesce(sum(cpu), 0)::text, coalesce(sum(gpu), 0)::text, coalesce(sum(gb), 0)::text, coalesce(sum(usd), 0)::text FROM parts`,
        [workspaceId, start, end],
      );
      const part = (pool: string): UsageFigures => {
        const r = rows.find((x: { pool: string }) => x.pool === pool);
        // JSON numbers only here, at the rendering edge.
        return {
          cpuSeconds: Number(r?.cpu ?? 0),
          gpuSeconds: Number(r?.gpu ?? 0),
          gbSeconds: Number(r?.gb ?? 0),
          estimateUsd: Number(r?.usd ?? 0),
        };
      };
      return {
        windowStart: start.toISOString(),
        windowEnd: end.toISOString(),
        ...part('total'),
        managed: part('managed'),
        self: part('self'),
      };
    },
  };
}
