import type { Context } from 'koa';
import type { LeasedLimiter } from '../rate-limits/leased-limiter';
import { AppError } from '../shared/errors';

/** Spends one request of `subject`'s budget: RateLimit-* headers on the answer, 429 past it. */
export async function spend(ctx: Context, limiter: LeasedLimiter, subject: string): Promise<void> {
  const v = await limiter.consume(subject);
  ctx.set('RateLimit-Policy', limiter.policy);
  ctx.set('RateLimit-Limit', String(v.limit));
  ctx.set('RateLimit-Remaining', String(v.remaining));
  ctx.set('RateLimit-Reset', String(v.resetSeconds));
  if (!v.allowed) {
    throw new AppError(
      'rate_limit.exceeded',
      `Too many requests: at most ${v.limit} in this window`,
      { limit: v.limit },
      v.resetSeconds,
    );
  }
}
