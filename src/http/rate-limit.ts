import type { Knex } from 'knex';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Principal } from '../auth/principal';
import { AppError } from '../shared/errors';

// Per-caller request budgets, one per minute and one per hour, counted in PostgreSQL so every API
// instance draws from the same budget. If that store cannot be reached, each instance falls back
// to the same limits counted in its own memory: requests are never refused for the limiter's
// sake, and a caller gets at most (instances x limit) while the store is away.

export interface RateLimitOptions {
  db: Knex;
  perMinute: number;
  perHour: number;
  log: Logger;
}

export interface Verdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window that decided this verdict starts over. */
  resetSeconds: number;
}

export function createRateLimiter({ db, perMinute, perHour, log }: RateLimitOptions) {
  let warned = false;
  const make = (points: number, duration: number, keyPrefix: string) => {
    const insurance = new RateLimiterMemory({ points, duration, keyPrefix });
    return new RateLimiterPostgres({
      storeClient: db,
      storeType: 'knex',
      tableName: 'rate_limits',
      tableCreated: true, // made by a migration
      keyPrefix,
      points,
      duration,
      insuranceLimiter: insurance,
    });
  };
  const windows = [
    { limit: perMinute, limiter: make(perMinute, 60, 'rl_min') },
    { limit: perHour, limiter: make(perHour, 3600, 'rl_hour') },
  ];
  return {
    policy: `${perMinute};w=60, ${perHour};w=3600`,
    async consume(subject: string): Promise<Verdict> {
      const results = await Promise.all(
        windows.map(async ({ limit, limiter }) => {
          try {
            const res = await limiter.consume(subject);
            return { limit, res, allowed: true };
          } catch (err) {
            if (err instanceof RateLimiterRes) return { limit, res: err, allowed: false };
            if (!warned) {
              warned = true;
              log.warn({ err: String(err) }, 'rate limit store failed and no fallback answered; request allowed');
            }
            return null;
          }
        }),
      );
      const known = results.filter((r) => r !== null);
      // The window the caller must wait on: fewest requests left, then the later reset. With both
      // spent, that is the hour's: a Retry-After of the minute's would only earn another 429.
      const decisive = known.sort((a, b) => a.res.remainingPoints - b.res.remainingPoints || b.res.msBeforeNext - a.res.msBeforeNext)[0];
      if (!decisive) return { allowed: true, limit: perMinute, remaining: perMinute, resetSeconds: 60 };
      return {
        allowed: known.every((r) => r.allowed),
        limit: decisive.limit,
        remaining: Math.max(0, decisive.res.remainingPoints),
        resetSeconds: Math.max(1, Math.ceil(decisive.res.msBeforeNext / 1000)),
      };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/** Who a budget belongs to: the user the caller acts for, else its workspace; without a credential, the address. */
export function subjectOf(ctx: Context): string {
  const p = ctx.state.principal as Principal | undefined;
  return p ? p.rateSubject : `ip:${ctx.ip}`;
}

/** Sets RateLimit-* headers on every answer and refuses with 429 past either budget. */
export function rateLimit(limiter: RateLimiter): Middleware {
  return async (ctx, next) => {
    const v = await limiter.consume(subjectOf(ctx));
    ctx.set('RateLimit-Policy', limiter.policy);
    ctx.set('RateLimit-Limit', String(v.limit));
    ctx.set('RateLimit-Remaining', String(v.remaining));
    ctx.set('RateLimit-Reset', String(v.resetSeconds));
    if (!v.allowed) {
      throw new AppError('rate_limit.exceeded', `Too many requests: at most ${v.limit} in this window`, { limit: v.limit }, v.resetSeconds);
    }
    await next();
  };
}
