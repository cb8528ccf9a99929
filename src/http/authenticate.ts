import type { Context, Middleware } from 'koa';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Principal } from '../auth/principal';
import { isRefused } from '../auth/principal';
import type { AuthService, Resolved } from '../auth/service';
import { AppError } from '../shared/errors';
import { type SessionCookie, csrfRefusal, csrfSatisfied } from './session-cookie';

/**
 * Resolves the caller from one credential. Each authenticator answers `undefined` when the
 * request does not carry its kind of credential, `null` when it carries a bad one, and a
 * `Refused` when it carries one of ours that no longer works (that refusal is audited).
 */
export type Authenticator = (ctx: Context) => Promise<Resolved | undefined>;

/**
 * `Authorization: Bearer <JWT>` from verify-otp (both surfaces take it); see AuthService.session.
 * Without an Authorization header, the portal's session cookie carries the same JWT: the request
 * is marked so authenticate holds its changes to the CSRF header.
 */
export const sessionAuthenticator =
  (auth: AuthService, cookie?: SessionCookie): Authenticator =>
  async (ctx) => {
    const header = ctx.get('Authorization');
    if (!header) {
      const token = cookie?.read(ctx);
      if (!token) return undefined;
      ctx.state.byCookie = true;
      return auth.session(token);
    }
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) return null;
    return auth.session(match[1]);
  };

/** The audit action a request attempts: its route's, from the table each surface mounts. */
export type ActionOf = (ctx: Context) => string;

/**
 * Resolves the caller or refuses with 401. Refusals are counted per client address in this
 * instance's memory, and an address past `failuresPerMinute` is refused with 429 before any
 * credential is looked up: guessing keys costs the guesser, not the database.
 */
export function authenticate(
  auth: AuthService,
  authenticators: Authenticator[],
  o: { failuresPerMinute: number; actionOf: ActionOf; missing?: string },
): Middleware {
  const { failuresPerMinute } = o;
  const missing = o.missing ?? 'Send an X-API-Key header or an Authorization: Bearer token';
  const failures = new RateLimiterMemory({ points: failuresPerMinute, duration: 60, keyPrefix: 'auth_fail' });
  const refuse = async (ip: string, message: string): Promise<never> => {
    await failures.consume(ip).catch(() => undefined);
    throw new AppError('auth.unauthenticated', message);
  };
  return async (ctx, next) => {
    const spent = await failures.get(ctx.ip);
    if (spent && spent.consumedPoints >= failuresPerMinute) {
      const retryAfter = Math.max(1, Math.ceil(spent.msBeforeNext / 1000));
      throw new AppError(
        'rate_limit.exceeded',
        `Too many refused credentials from this address; retry in ${retryAfter} s`,
        { limit: failuresPerMinute },
        retryAfter,
      );
    }
    for (const authenticator of authenticators) {
      const principal = await authenticator(ctx);
      if (principal === null) return refuse(ctx.ip, 'The credential is invalid, expired or revoked');
      if (isRefused(principal)) {
        const { workspaceId, actor, reason, target } = principal.refused;
        await auth.recordRefusal({
          workspaceId,
          actor,
          action: o.actionOf(ctx),
          target: target ?? { type: 'credential', id: actor.id },
          origin: originOf(ctx),
          details: { status: 401, reason },
        });
        return refuse(
          ctx.ip,
          `The credential is ${reason === 'not a member' ? 'no longer a member of its workspace' : reason}`,
        );
      }
      if (principal) {
        ctx.state.principal = { ...principal, origin: originOf(ctx) };
        if (ctx.state.byCookie && !csrfSatisfied(ctx)) {
          // A forged cross-site request is worth the audit log: it names the user it tried to act as.
          const refusal = csrfRefusal(ctx);
          await auth.recordRefusal({
            workspaceId: principal.workspaceId,
            actor: principal.actor,
            action: o.actionOf(ctx),
            target: { type: 'request', id: `${ctx.method} ${ctx.path}`.slice(0, 256) },
            origin: originOf(ctx),
            details: { status: 403, reason: 'csrf header missing', origin: ctx.get('Origin') || undefined },
          });
          refusal.audited = true;
          throw refusal;
        }
        return next();
      }
    }
    return refuse(ctx.ip, missing);
  };
}

export const principalOf = (ctx: Context): Principal => ctx.state.principal as Principal;

/** Where the request came from, as the audit log records it. */
export const originOf = (ctx: Context) => ({ ip: ctx.ip, userAgent: ctx.get('User-Agent') || undefined });
