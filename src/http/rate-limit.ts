import type { Knex } from 'knex';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import { type LeasedLimiter, createLeasedLimiter } from '../rate-limits/leased-limiter';
import { AppError } from '../shared/errors';

// Surface A's request budgets: one per minute and one per hour per caller, shared by every API
// instance through leases from PostgreSQL (see leased-limiter.ts for what that bounds).

export interface RateLimitOptions {
  db: Knex;
  perMinute: number;
  perHour: number;
  /** About how much of a caller's traffic one lease covers. */
  leaseMs: number;
  log: Logger;
}

export function createRateLimiter({ db, perMinute, perHour, leaseMs, log }: RateLimitOptions): LeasedLimiter {
  return createLeasedLimiter({
    db,
    leaseMs,
    log,
    windows: [
      { limit: perMinute, durationSeconds: 60, prefix: 'rl_min' },
      { limit: perHour, durationSeconds: 3600, prefix: 'rl_hour' },
    ],
  });
}

export type RateLimiter = LeasedLimiter;

/** Who a budget belongs to: the user the caller acts for, else its workspace; without a credential, the address. */
export function subjectOf(ctx: Context): string {
  const p = ctx.state.principal as Principal | undefined;
  return p ? p.rateSubject : `ip:${ctx.ip}`;
}

/** Spends one request of `subject`'s budget: RateLimit-* headers on the answer, 429 past it. */
export async function spend(ctx: Context, limiter: RateLimiter, subject: string): Promise<void> {
  const v = await limiter.consume(subject);
  ctx.set('RateLimit-Policy', limiter.policy);
  ctx.set('RateLimit-Limit', String(v.limit));
  ctx.set('RateLimit-Remaining', String(v.remaining));
  ctx.set('RateLimit-Reset', String(v.resetSeconds));
  if (!v.allowed) {
    throw new AppError('rate_limit.exceeded', `Too many requests: at most ${v.limit} in this window`, { limit: v.limit }, v.resetSeconds);
  }
}

/** Sets RateLimit-* headers on every answer and refuses with 429 past either budget. */
export function rateLimit(limiter: RateLimiter): Middleware {
  return async (ctx, next) => {
    await spend(ctx, limiter, subjectOf(ctx));
    await next();
  };
}
