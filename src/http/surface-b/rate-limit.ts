import type { Middleware } from 'koa';
import type { WorkspaceSettings } from '../../auth/credential-cache';
import type { AuthService } from '../../auth/service';
import type { LeasedLimiter, WindowSpec } from '../../rate-limits/leased-limiter';
import { notFound } from '../../shared/errors';
import { principalOf } from '../authenticate';
import { spend } from '../spend-budget';

// /v0 budgets are per workspace and by plan (CONTRACT §9), shared by every API instance through
// the leased limiter: at most `burst` requests in any one second and `requestsPerSecond` × 10 in
// any ten (fixed windows), so a burst of `burst` passes and the sustained rate is the plan's.

export interface Budget {
  requestsPerSecond: number;
  burst: number;
}

export const PLAN_BUDGETS: Record<'payg' | 'team', Budget> = {
  payg: { requestsPerSecond: 100, burst: 200 },
  team: { requestsPerSecond: 1000, burst: 2000 },
};

/** The workspace's budget; null: unlimited (hobby, or an enterprise workspace without a setting). */
export function budgetOf(w: WorkspaceSettings): Budget | null {
  if (w.plan === 'payg' || w.plan === 'team') return PLAN_BUDGETS[w.plan];
  if (w.plan === 'enterprise' && w.requestsPerSecond) return { requestsPerSecond: w.requestsPerSecond, burst: w.burst ?? w.requestsPerSecond * 2 };
  return null;
}

export function workspaceRateLimit(o: { auth: AuthService; leased: (windows: WindowSpec[]) => LeasedLimiter }): Middleware {
  // One limiter per distinct budget; the store's keys name the budget, so a plan change starts afresh.
  const limiters = new Map<string, LeasedLimiter>();
  const limiterFor = (b: Budget) => {
    const name = `${b.requestsPerSecond}_${b.burst}`;
    let limiter = limiters.get(name);
    if (!limiter) {
      limiter = o.leased([
        { limit: b.burst, durationSeconds: 1, prefix: `v0s_${name}` },
        { limit: b.requestsPerSecond * 10, durationSeconds: 10, prefix: `v0t_${name}` },
      ]);
      limiters.set(name, limiter);
    }
    return limiter;
  };
  return async (ctx, next) => {
    const { workspaceId } = principalOf(ctx);
    const settings = await o.auth.workspace(workspaceId);
    if (!settings) throw notFound('Workspace');
    const budget = budgetOf(settings);
    if (budget) await spend(ctx, limiterFor(budget), workspaceId);
    await next();
  };
}
