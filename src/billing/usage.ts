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
      const period = await db('billing_accounts').where({ workspace_id: workspaceId }).first('current_period_start', 'current_period_end');
      if (!period) throw notFound('Workspace');
      const start = window.start ?? new Date(period.current_period_start);
      const end = window.end ?? new Date(period.current_period_end);
      const fields: Array<{ path: string; message: string }> = [];
      if (start >= end) fields.push({ path: 'windowEnd', message: 'must be after windowStart' });
      else if (end.getTime() - start.getTime() > MAX_WINDOW_MS) fields.push({ path: 'windowEnd', message: 'at most 366 days after windowStart' });
      if (fields.length) throw new AppError('request.invalid', 'The usage window is invalid', { fields });
      const { rows } = await db.raw(
        `SELECT pool, round(sum(cpu_seconds), 6)::text AS cpu, round(sum(gpu_seconds), 6)::text AS gpu,
                round(sum(gb_seconds), 6)::text AS gb, round(sum(amount_usd), 6)::text AS usd
         FROM usage_ledger WHERE workspace_id = ? AND to_at >= ? AND to_at < ? GROUP BY pool`,
        [workspaceId, start, end],
      );
      const part = (pool: string): UsageFigures => {
        const r = rows.find((x: { pool: string }) => x.pool === pool);
        return { cpuSeconds: Number(r?.cpu ?? 0), gpuSeconds: Number(r?.gpu ?? 0), gbSeconds: Number(r?.gb ?? 0), estimateUsd: pool === 'self' ? 0 : Number(r?.usd ?? 0) };
      };
      const managed = part('managed');
      const self = part('self');
      // Each total from the parts' rounded figures, so the record adds up as read.
      const sum = (k: keyof UsageFigures) => Number((managed[k] + self[k]).toFixed(6));
      return {
        windowStart: start.toISOString(),
        windowEnd: end.toISOString(),
        cpuSeconds: sum('cpuSeconds'),
        gpuSeconds: sum('gpuSeconds'),
        gbSeconds: sum('gbSeconds'),
        estimateUsd: sum('estimateUsd'),
        managed,
        self,
      };
    },
  };
}
