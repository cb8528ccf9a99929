import type { Knex } from 'knex';
import { authenticateAccessToken, TOKEN_PREFIX } from '../../auth/access-tokens';
import type { CredentialCache } from '../../auth/credential-cache';
import { type Principal, isRefused } from '../../auth/principal';
import { lowerOf } from '../../auth/roles';
import { roleOf } from '../../auth/users';
import { AppError } from '../../shared/errors';
import type { Authenticator } from '../authenticate';

// Who a /v0 request acts as, and in which workspace (CONTRACT §5): a session JWT or a personal
// access token, acting in the path's workspace, else X-Compute-Workspace, else its own.

/** Surface A's key header is refused by name on /v0, before any lookup. */
export const refuseApiKeyHeader: Authenticator = async (ctx) => {
  if (ctx.get('X-API-Key') && !ctx.get('Authorization')) {
    throw new AppError('auth.unauthenticated', "/v0 takes Authorization: Bearer <session token or cpat_ token>; X-API-Key is Surface A's");
  }
  return undefined;
};

/**
 * `Authorization: Bearer cpat_…`: the token acts for its issuer in its one workspace, with its
 * role capped by the issuer's role there now, so a removed or demoted issuer's tokens follow at once.
 */
export const accessTokenAuthenticator =
  (db: Knex, cache: CredentialCache): Authenticator =>
  async (ctx) => {
    const match = /^Bearer\s+(cpat_\S*)$/i.exec(ctx.get('Authorization'));
    if (!match) return undefined;
    const presented = match[1];
    if (!presented.startsWith(TOKEN_PREFIX)) return null;
    const grant = await cache.apiKey(presented, async () => {
      const g = await authenticateAccessToken(db, presented);
      if (!g || isRefused(g)) return g;
      return {
        workspaceId: g.workspaceId,
        kind: 'user',
        credential: 'token',
        keyId: g.id,
        userId: g.userId,
        role: g.role,
        actor: { type: 'token', id: g.id, email: g.email },
        rateSubject: `ws:${g.workspaceId}`,
        credentialId: g.id,
        expiresAt: g.expiresAt,
      } satisfies Principal;
    });
    if (!grant || isRefused(grant)) return grant;
    const target = { type: 'token', id: grant.keyId! };
    if (grant.expiresAt !== undefined && Date.now() >= grant.expiresAt) return { refused: { workspaceId: grant.workspaceId, actor: grant.actor, reason: 'expired', target } };
    const issuerRole = await cache.memberRole(grant.userId!, grant.workspaceId, () => roleOf(db, grant.userId!, grant.workspaceId));
    if (!issuerRole) return { refused: { workspaceId: grant.workspaceId, actor: grant.actor, reason: 'not a member', target } };
    return { ...grant, role: lowerOf(grant.role!, issuerRole) };
  };
