import type { Knex } from 'knex';
import { appendAudit } from '../audit/log';
import { type PageRequest, decodeCursor, pageOf } from '../shared/cursor';
import { lockOwner, refuseAtBound } from '../shared/count-bound';
import { AppError, notFound } from '../shared/errors';
import { iso, isoOrNull } from '../shared/time';
import { createAccessToken } from './access-tokens';
import { auditBy, authorize } from './authorize';
import type { CredentialCache } from './credential-cache';
import type { Principal } from './principal';
import { type Role, atLeast } from './roles';

// Personal access tokens of a workspace (CONTRACT §5): issued by an admin or owner from a session,
// listed without secrets, revoked on every instance before the revoke answers.

export interface TokenRecord {
  id: string;
  name: string;
  role: Role;
  workspaceId: string;
  userId: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const recordOf = (r: Record<string, unknown>): TokenRecord => ({
  id: r.id as string,
  name: r.name as string,
  role: r.role as Role,
  workspaceId: r.workspace_id as string,
  userId: r.user_id as string,
  createdAt: iso(r.created_at as Date),
  expiresAt: isoOrNull(r.expires_at as Date | null),
  lastUsedAt: isoOrNull(r.last_used_at as Date | null),
  revokedAt: isoOrNull(r.revoked_at as Date | null),
});

export function createTokenService({
  db,
  credentials,
  maxLive,
}: {
  db: Knex;
  credentials: CredentialCache;
  maxLive: number;
}) {
  const tokens = () => db('api_keys').where({ kind: 'token' });
  return {
    async create(
      p: Principal,
      body: { name: string; role: Role; expiresInDays?: number },
    ): Promise<TokenRecord & { token: string }> {
      await authorize(db, p, 'token.create', { type: 'token', id: 'new' });
      // A leaked token must not be able to mint its own successors.
      if (p.credential !== 'jwt')
        throw new AppError('auth.forbidden', 'Access tokens are issued from a session token (compute print-token)');
      if (!atLeast(p.role!, body.role))
        throw new AppError('auth.forbidden', `A token's role is at most the issuer's (${p.role})`, {
          requiredRole: body.role,
        });
      const expiresAt = body.expiresInDays ? new Date(Date.now() + body.expiresInDays * 86_400_000) : null;
      const made = await db.transaction(async (trx) => {
        await lockOwner(trx, 'workspaces', p.workspaceId);
        const live = trx('api_keys')
          .where({ workspace_id: p.workspaceId, kind: 'token' })
          .whereNull('revoked_at')
          .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', trx.fn.now()));
        await refuseAtBound(live, maxLive, 'Live access tokens in a workspace');
        const out = await createAccessToken(trx, {
          workspaceId: p.workspaceId,
          userId: p.userId!,
          name: body.name,
          role: body.role,
          expiresAt,
        });
        await appendAudit(trx, {
          ...auditBy(p),
          action: 'token.create',
          target: { type: 'token', id: out.id },
          details: { name: body.name, role: body.role, expiresAt: isoOrNull(expiresAt) },
        });
        return out;
      });
      return { ...recordOf(await tokens().where({ id: made.id }).first()), token: made.token };
    },

    async list(p: Principal, page: PageRequest) {
      await authorize(db, p, 'token.read', { type: 'workspace', id: p.workspaceId });
      const q = tokens().where({ workspace_id: p.workspaceId });
      if (page.cursor) q.where('id', '<', decodeCursor(page.cursor, 'key', 'pageToken'));
      return pageOf(await q.orderBy('id', 'desc').limit(page.limit + 1), page.limit, recordOf);
    },

    /** Idempotent; answered once every API instance refuses the token. */
    async revoke(p: Principal, id: string): Promise<TokenRecord> {
      const row = await tokens().where({ id, workspace_id: p.workspaceId }).first();
      if (!row) throw notFound('Token');
      await authorize(db, p, 'token.revoke', { type: 'token', id });
      if (!row.revoked_at) {
        await db.transaction(async (trx) => {
          const changed = await trx('api_keys')
            .where({ id })
            .whereNull('revoked_at')
            .update({ revoked_at: trx.fn.now() });
          if (changed)
            await appendAudit(trx, {
              ...auditBy(p),
              action: 'token.revoke',
              target: { type: 'token', id },
              details: { name: row.name },
            });
        });
        await credentials.settle();
      }
      return recordOf(await tokens().where({ id }).first());
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
