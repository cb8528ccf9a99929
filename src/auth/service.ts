import DataLoader from 'dataloader';
import type { Knex } from 'knex';
import { NOTIFY } from '../db/channels';
import { type AuditEntry, appendAudit } from '../audit/log';
import { TOKEN_PREFIX, authenticateAccessToken } from './access-tokens';
import { apiKeyStillValid, authenticateApiKey, authenticateApiKeys } from './api-keys';
import { authorize } from './authorize';
import type { CredentialCache, WorkspaceSettings } from './credential-cache';
import type { TokenIssuer } from './jwt';
import { type Principal, type Refused, isRefused } from './principal';
import { type Action, type Role, lowerOf } from './roles';
import { roleOf } from './users';
import { workspaceSettings } from './workspace-settings';

/**
 * What a presented credential comes to: the caller; `Refused` for one of ours that no longer works
 * (revoked, expired, its holder no longer a member: that refusal is audited); null for anything
 * else (unknown, malformed, forged).
 */
export type Resolved = Principal | Refused | null;

/** How long a key's renewal waits for others to share its statement. */
const RENEWAL_WINDOW_MS = 25;

const sessionRefused = (c: { userId: string; workspaceId: string; email: string }, reason: string): Refused => ({
  refused: { workspaceId: c.workspaceId, actor: { type: 'user', id: c.userId, email: c.email }, reason },
});

/**
 * Who a request acts as and what it may do, for both HTTP surfaces: each credential resolved
 * through the instance's credential cache (a known one costs no statement), the member's role read
 * fresh, the role rules, and the audit entries of refusals. The surfaces read headers; this decides.
 */
export function createAuthService({
  db,
  credentials: cache,
  tokens,
  stampLater,
}: {
  db: Knex;
  credentials: CredentialCache;
  tokens: TokenIssuer;
  /** A key's last-used stamp, written with others (key-use-stamps.ts). */
  stampLater?: (keyId: string) => void;
}) {
  // A fleet's keys come back to the database each time their entry's TTL runs out (10 000 agents:
  // 167 a second); those renewals share one statement per window. A key not held yet is read at once.
  const renewals = new DataLoader<string, Principal | Refused | null>(
    (presented) => authenticateApiKeys(db, presented, stampLater),
    { cache: false, maxBatchSize: 500, batchScheduleFn: (run) => setTimeout(run, RENEWAL_WINDOW_MS) },
  );

  /** The user's role in the workspace now; null when not (or no longer) a member. */
  const roleIn = (userId: string, workspaceId: string): Promise<Role | null> =>
    cache.memberRole(userId, workspaceId, () => roleOf(db, userId, workspaceId));

  return {
    /** An API key `<prefix>_<secret>` (user, agent or node key). */
    apiKey: (presented: string): Promise<Resolved> =>
      cache.apiKey(presented, (renewal) =>
        renewal ? renewals.load(presented) : authenticateApiKey(db, presented, stampLater),
      ),

    /**
     * A session JWT from verify-otp. A session authenticates its user: it names a workspace (the
     * personal one) only as the default place to act, and the user's role there is read fresh so
     * a removal takes effect at once. No longer a member there, the session still authenticates,
     * with no role: it may act elsewhere, list and create workspaces, and is refused only where it
     * acts.
     */
    async session(token: string): Promise<Resolved> {
      const claims = await cache.session(
        token,
        () => tokens.verify(token),
        async (sessionId) => (await db('revoked_sessions').where({ jti: sessionId }).first('jti')) !== undefined,
      );
      if (!claims || Date.now() >= claims.expiresAt!) {
        // Only a session we signed is worth an audit entry; a forged one is just refused.
        const expired = await tokens.expired(token);
        return expired ? sessionRefused(expired, 'expired') : null;
      }
      const role = await roleIn(claims.userId, claims.workspaceId);
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
    },

    /**
     * Ends the session `token` names on every instance before it answers, however long its token
     * would still be valid (a token issued before sessions had ids lives until it expires).
     */
    async signOut(token: string): Promise<void> {
      const claims = await tokens.verify(token);
      if (!claims?.sessionId) return;
      await db.transaction(async (trx) => {
        await trx('revoked_sessions')
          .insert({ jti: claims.sessionId, expires_at: new Date(claims.expiresAt!) })
          .onConflict('jti')
          .ignore();
        // Revocations of sessions that have expired anyway are needed no more.
        await trx('revoked_sessions').where('expires_at', '<', trx.fn.now()).delete();
        await trx.raw('SELECT pg_notify(?, ?)', [NOTIFY.credentials, `session:${claims.sessionId}`]);
      });
      await cache.settle();
    },

    /**
     * A personal access token `cpat_…`: it acts for its issuer in its one workspace, with its role
     * capped by the issuer's role there now, so a removed or demoted issuer's tokens follow at once.
     */
    async accessToken(presented: string): Promise<Resolved> {
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
      if (grant.expiresAt !== undefined && Date.now() >= grant.expiresAt)
        return { refused: { workspaceId: grant.workspaceId, actor: grant.actor, reason: 'expired', target } };
      const issuerRole = await roleIn(grant.userId!, grant.workspaceId);
      if (!issuerRole)
        return { refused: { workspaceId: grant.workspaceId, actor: grant.actor, reason: 'not a member', target } };
      return { ...grant, role: lowerOf(grant.role!, issuerRole) };
    },

    roleOf: roleIn,

    /** A workspace's plan and budget settings; null when there is no such workspace. */
    workspace: (workspaceId: string): Promise<WorkspaceSettings | null> =>
      cache.workspace(workspaceId, () => workspaceSettings(db, workspaceId)),

    /** Whether the credential a long-lived request began with still holds (not revoked, not expired, still a member). */
    async stillValid(p: Principal): Promise<boolean> {
      if (p.expiresAt !== undefined && Date.now() >= p.expiresAt) return false;
      if (p.credential === 'api_key') return cache.keyKnownValid(p.keyId!) ?? apiKeyStillValid(db, p.keyId!);
      if (p.credential === 'token' && !(cache.keyKnownValid(p.keyId!) ?? (await apiKeyStillValid(db, p.keyId!))))
        return false;
      return Boolean(await roleIn(p.userId!, p.workspaceId));
    },

    /** Lets `p` do `action` on `target`, or records the attempt (denied) and refuses with 403. */
    authorize: (
      p: Principal,
      action: Action | string,
      target: { type: string; id: string },
      need?: Role,
    ): Promise<void> => authorize(db, p, action, target, need),

    /** Records a refused attempt (outcome `denied`) on its own: there is no change for it to join. */
    recordRefusal: (entry: Omit<AuditEntry, 'outcome'>): Promise<void> =>
      appendAudit(db, { ...entry, outcome: 'denied' }),
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
