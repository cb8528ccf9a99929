import type { Knex } from 'knex';
import type { Context, Middleware } from 'koa';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { appendAudit } from '../audit/log';
import { apiKeyStillValid, authenticateApiKey } from '../auth/api-keys';
import type { CredentialCache } from '../auth/credential-cache';
import type { TokenIssuer } from '../auth/jwt';
import { type Principal, type Refused, isRefused } from '../auth/principal';
import { roleOf } from '../auth/users';
import { AppError } from '../shared/errors';

/**
 * Resolves the caller from one credential. Each authenticator answers `undefined` when the
 * request does not carry its kind of credential, `null` when it carries a bad one, and a
 * `Refused` when it carries one of ours that no longer works (that refusal is audited).
 */
export type Authenticator = (ctx: Context) => Promise<Principal | Refused | null | undefined>;

/** `X-API-Key`; a key this instance resolved before costs no statement (see CredentialCache). */
export const apiKeyAuthenticator =
  (db: Knex, cache: CredentialCache): Authenticator =>
  async (ctx) => {
    const key = ctx.get('X-API-Key');
    if (!key) return undefined;
    return cache.apiKey(key, () => authenticateApiKey(db, key));
  };

/**
 * `Authorization: Bearer <JWT>` from verify-otp. A session authenticates its user: it names a
 * workspace (the personal one) only as the default place to act, and the user's role there is
 * read fresh so a removal takes effect at once. No longer a member there, the session still
 * authenticates, with no role: it may act elsewhere (`X-Compute-Workspace`), list and create
 * workspaces, and is refused only where it acts (actInWorkspace).
 */
export const jwtAuthenticator =
  (tokens: TokenIssuer, db: Knex, cache: CredentialCache): Authenticator =>
  async (ctx) => {
    const header = ctx.get('Authorization');
    if (!header) return undefined;
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) return null;
    const claims = await cache.session(match[1], () => tokens.verify(match[1]));
    if (!claims || Date.now() >= claims.expiresAt!) {
      // Only a session we signed is worth an audit entry; a forged one is just refused.
      const expired = await tokens.expired(match[1]);
      return expired ? sessionRefused(expired, 'expired') : null;
    }
    const role = await cache.memberRole(claims.userId, claims.workspaceId, () => roleOf(db, claims.userId, claims.workspaceId));
    return {
      workspaceId: claims.workspaceId,
      kind: 'user',
      credential: 'jwt',
      role: role ?? undefined,
      actor: { type: 'user', id: claims.userId, email: claims.email },
      userId: claims.userId,
      rateSubject: `usr:${claims.userId}`,
      credentialId: `jwt:${claims.userId}:${claims.workspaceId}`,
      expiresAt: claims.expiresAt,
    };
  };

const sessionRefused = (c: { userId: string; workspaceId: string; email: string }, reason: string): Refused => ({
  refused: { workspaceId: c.workspaceId, actor: { type: 'user', id: c.userId, email: c.email }, reason },
});

/** The audit action a request attempts: its route's, from the table each surface mounts. */
export type ActionOf = (ctx: Context) => string;

/**
 * Resolves the caller or refuses with 401. Refusals are counted per client address in this
 * instance's memory, and an address past `failuresPerMinute` is refused with 429 before any
 * credential is looked up: guessing keys costs the guesser, not the database.
 */
export function authenticate(
  db: Knex,
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
      throw new AppError('rate_limit.exceeded', `Too many refused credentials from this address; retry in ${retryAfter} s`, { limit: failuresPerMinute }, retryAfter);
    }
    for (const authenticator of authenticators) {
      const principal = await authenticator(ctx);
      if (principal === null) return refuse(ctx.ip, 'The credential is invalid, expired or revoked');
      if (isRefused(principal)) {
        const { workspaceId, actor, reason, target } = principal.refused;
        await appendAudit(db, {
          workspaceId,
          actor,
          action: o.actionOf(ctx),
          target: target ?? { type: 'credential', id: actor.id },
          outcome: 'denied',
          origin: originOf(ctx),
          details: { status: 401, reason },
        });
        return refuse(ctx.ip, `The credential is ${reason === 'not a member' ? 'no longer a member of its workspace' : reason}`);
      }
      if (principal) {
        ctx.state.principal = { ...principal, origin: originOf(ctx) };
        return next();
      }
    }
    return refuse(ctx.ip, missing);
  };
}

export const principalOf = (ctx: Context): Principal => ctx.state.principal as Principal;

/** Where the request came from, as the audit log records it. */
export const originOf = (ctx: Context) => ({ ip: ctx.ip, userAgent: ctx.get('User-Agent') || undefined });

/** Whether the credential a long-lived request began with still holds (not revoked, not expired, still a member). */
export async function credentialStillValid(db: Knex, cache: CredentialCache, p: Principal): Promise<boolean> {
  if (p.expiresAt !== undefined && Date.now() >= p.expiresAt) return false;
  if (p.credential === 'api_key') return cache.keyKnownValid(p.keyId!) ?? apiKeyStillValid(db, p.keyId!);
  if (p.credential === 'token' && !(cache.keyKnownValid(p.keyId!) ?? (await apiKeyStillValid(db, p.keyId!)))) return false;
  return Boolean(await cache.memberRole(p.userId!, p.workspaceId, () => roleOf(db, p.userId!, p.workspaceId)));
}

/**
 * A node key acts for its node only: the node's own protocol operations take it, nothing else
 * does. A job's command runs beside the agent, so a leaked node key must not reach the workspace.
 */
export function refuseNodeKey(ctx: Context): void {
  if ((ctx.state.principal as Principal | undefined)?.kind === 'node') {
    throw new AppError('auth.forbidden', "A node key may only call its own node's heartbeat, poll, logs, result, drain and rotate-key");
  }
}
