import type { Knex } from 'knex';
import { notFound } from '../shared/errors';
import { trimDecimal, usdNumber } from './money';

// The plans (CONTRACT §9), read from billing_plans: their prices per CPU-, GPU- and GB-second and
// their /v0 request budget. Prices are exact decimal strings here (numeric from PostgreSQL); the
// meter prices usage in SQL against the same rows.

export const PLAN_IDS = ['hobby', 'payg', 'team', 'enterprise'] as const;
export type PlanId = (typeof PLAN_IDS)[number];
export const isPlanId = (v: unknown): v is PlanId =>
  typeof v === 'string' && (PLAN_IDS as readonly string[]).includes(v);

export interface Plan {
  id: PlanId;
  name: string;
  /** USD per second of one CPU core, one GPU and one GB of memory: exact decimals, e.g. `0.000024`. */
  prices: { cpuSecondUsd: string; gpuSecondUsd: string; gbSecondUsd: string };
  /** The /v0 budget of every workspace on the plan; null: none, or the workspace's own (`workspaceLimits`). */
  requestsPerSecond: number | null;
  burst: number | null;
  /** The budget is each workspace's own setting (workspaces.requests_per_second, burst): enterprise. */
  workspaceLimits: boolean;
  /** Usage on the plan is charged (hobby's is not). */
  billed: boolean;
  invoices: boolean;
}

const planOf = (r: Record<string, unknown>): Plan => ({
  id: r.id as PlanId,
  name: r.name as string,
  prices: {
    cpuSecondUsd: trimDecimal(r.cpu_second_usd as string),
    gpuSecondUsd: trimDecimal(r.gpu_second_usd as string),
    gbSecondUsd: trimDecimal(r.gb_second_usd as string),
  },
  requestsPerSecond: (r.requests_per_second as number | null) ?? null,
  burst: (r.burst as number | null) ?? null,
  workspaceLimits: r.workspace_limits as boolean,
  billed: r.billed as boolean,
  invoices: r.invoices as boolean,
});

/** Every plan, in their listing order, from the database (no cache: `db` may be a transaction). */
export async function readPlans(db: Knex | Knex.Transaction): Promise<Plan[]> {
  return (await db('billing_plans').orderBy('position')).map(planOf);
}

/** CONTRACT §9's plan record: prices as JSON numbers, rendered from the exact decimals. */
export function planRecord(p: Plan) {
  return {
    id: p.id,
    name: p.name,
    prices: {
      cpuSecondUsd: usdNumber(p.prices.cpuSecondUsd),
      gpuSecondUsd: usdNumber(p.prices.gpuSecondUsd),
      gbSecondUsd: usdNumber(p.prices.gbSecondUsd),
    },
    requestsPerSecond: p.requestsPerSecond,
    burst: p.burst,
    invoices: p.invoices,
  };
}

/**
 * The plans as this process knows them: read at most once per `ttlMs` (plans change by
 * migration or an operator's statement, rarely), so a request's budget costs no statement.
 */
export function createPlans(o: { db: Knex; ttlMs?: number }) {
  const ttlMs = o.ttlMs ?? 30_000;
  let cached: { plans: Promise<Plan[]>; at: number } | undefined;
  const list = (): Promise<Plan[]> => {
    const now = Date.now();
    if (!cached || now - cached.at >= ttlMs) {
      const plans = readPlans(o.db);
      cached = { plans, at: now };
      // A failed read is not kept: the next call asks again.
      plans.catch(() => {
        if (cached?.plans === plans) cached = undefined;
      });
    }
    return cached.plans;
  };
  return {
    list,
    async get(id: string): Promise<Plan> {
      const plan = (await list()).find((p) => p.id === id);
      if (!plan) throw notFound('Plan');
      return plan;
    },
  };
}

export type Plans = ReturnType<typeof createPlans>;
