import type { Context, Middleware } from 'koa';
import type { Principal } from '../../auth/principal';
import type { LeasedLimiter, WindowSpec } from '../../rate-limits/leased-limiter';
import { spend } from '../spend-budget';

// Surface A's request budgets: one per minute and one per hour per caller, shared by every API
// instance through leases from PostgreSQL (see leased-limiter.ts for what that bounds).

export function createRateLimiter(
  leased: (windows: WindowSpec[]) => LeasedLimiter,
  { perMinute, perHour }: { perMinute: number; perHour: number },
): LeasedLimiter {
  return leased([
    { limit: perMinute, durationSeconds: 60, prefix: 'rl_min' },
    { limit: perHour, durationSeconds: 3600, prefix: 'rl_hour' },
  ]);
}

/** Who a budget belongs to: the user the caller acts for, else its workspace; without a credential, the address. */
export function subjectOf(ctx: Context): string {
  const p = ctx.state.principal as Principal | undefined;
  return p ? p.rateSubject : `ip:${ctx.ip}`;
}

/** Sets RateLimit-* headers on every answer and refuses with 429 past either budget. */
export function rateLimit(limiter: LeasedLimiter): Middleware {
  return async (ctx, next) => {
    await spend(ctx, limiter, subjectOf(ctx));
    // A tail call: nothing to do afterwards, so no frame of this stays suspended for the request.
    return next();
  };
}
