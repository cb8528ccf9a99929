import type { Middleware } from 'koa';
import type { WorkspaceSettings } from '../../auth/credential-cache';
import type { AuthService } from '../../auth/service';
import type { Plan, Plans } from '../../billing/plans';
import type { LeasedLimiter, WindowSpec } from '../../rate-limits/leased-limiter';
import { notFound } from '../../shared/errors';
import { principalOf } from '../authenticate';
import { spend } from '../spend-budget';

// /v0 budgets are per workspace and by plan (CONTRACT §9), shared by every API instance through
// the leased limiter: at most `burst` requests in any one second and `requestsPerSecond` × 10 in
// any ten (fixed windows), so a burst of `burst` passes and the sustained rate is the plan's.
// The figures are the plan record's (billing_plans); an enterprise workspace's are its own.

export interface Budget {
  requestsPerSecond: number;
  burst: number;
}

/** The workspace's budget under its plan; null: unlimited (hobby, or an enterprise workspace without a setting). */
export function budgetOf(plan: Plan, w: WorkspaceSettings): Budget | null {
  if (plan.requestsPerSecond)
    return { requestsPerSecond: plan.requestsPerSecond, burst: plan.burst ?? plan.requestsPerSecond * 2 };
  if (plan.workspaceLimits && w.requestsPerSecond)
    return { requestsPerSecond: w.requestsPerSecond, burst: w.burst ?? w.requestsPerSecond * 2 };
  return null;
}

export function workspaceRateLimit(o: {
  auth: AuthService;
  plans: Plans;
  leased: (windows: WindowSpec[]) => LeasedLimiter;
}): Middleware {
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
    const budget = budgetOf(await o.plans.get(settings.plan), settings);
    if (budget) await spend(ctx, limiterFor(budget), workspaceId);
    await next();
  };
}
