import type { Knex } from 'knex';
import type { Context, Middleware } from 'koa';
import { authenticateApiKey } from '../auth/api-keys';
import type { TokenIssuer } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import { isMember } from '../auth/users';
import { AppError } from '../shared/errors';

/**
 * Resolves the caller from one credential. Each authenticator answers `undefined` when the
 * request does not carry its kind of credential, `null` when it carries a bad one. JWTs slot in
 * as another authenticator beside API keys.
 */
export type Authenticator = (ctx: Context) => Promise<Principal | null | undefined>;

export const apiKeyAuthenticator =
  (db: Knex): Authenticator =>
  async (ctx) => {
    const key = ctx.get('X-API-Key');
    if (!key) return undefined;
    return authenticateApiKey(db, key);
  };

/** `Authorization: Bearer <JWT>` from verify-otp; membership is re-checked so removal takes effect at once. */
export const jwtAuthenticator =
  (tokens: TokenIssuer, db: Knex): Authenticator =>
  async (ctx) => {
    const header = ctx.get('Authorization');
    if (!header) return undefined;
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) return null;
    const claims = await tokens.verify(match[1]);
    if (!claims || !(await isMember(db, claims.userId, claims.workspaceId))) return null;
    return { workspaceId: claims.workspaceId, kind: 'user', credential: 'jwt', userId: claims.userId };
  };

export function authenticate(authenticators: Authenticator[]): Middleware {
  return async (ctx, next) => {
    for (const authenticator of authenticators) {
      const principal = await authenticator(ctx);
      if (principal === null) throw new AppError('auth.unauthenticated', 'The credential is invalid, expired or revoked');
      if (principal) {
        ctx.state.principal = principal;
        return next();
      }
    }
    throw new AppError('auth.unauthenticated', 'Send an X-API-Key header or an Authorization: Bearer token');
  };
}

export const principalOf = (ctx: Context): Principal => ctx.state.principal as Principal;
