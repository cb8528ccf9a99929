import type { Knex } from 'knex';
import { decodeCursor, pageOf } from '../shared/cursor';
import { AppError, notFound } from '../shared/errors';
import { iso, isoOrNull } from '../shared/time';
import { type KeyKind, type Quotas, createApiKey } from './api-keys';
import type { CredentialCache } from './credential-cache';
import { appendAudit } from '../audit/log';
import { auditBy } from './authorize';
import type { Principal } from './principal';

export interface ApiKeyRecord {
  id: string;
  prefix: string;
  name: string;
  /** Only user and agent keys are listed (ownedBy); managed-pool keys are an operator's, out of any member's reach. */
  kind: Exclude<KeyKind, 'managed'>;
  quotas: Quotas | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const recordOf = (r: Record<string, unknown>): ApiKeyRecord => ({
  id: r.id as string,
  prefix: r.prefix as string,
  name: r.name as string,
  kind: r.kind as ApiKeyRecord['kind'],
  quotas: (r.quotas as Quotas | null) ?? null,
  createdAt: iso(r.created_at as Date),
  lastUsedAt: isoOrNull(r.last_used_at as Date | null),
  revokedAt: isoOrNull(r.revoked_at as Date | null),
});

/** The user and agent keys of the caller's user: node keys belong to their nodes (rotate-key). */
function ownedBy(db: Knex, p: Principal) {
  const q = db('api_keys').where({ workspace_id: p.workspaceId }).whereIn('kind', ['user', 'agent']);
  // Keys minted by an operator (`compute admin keys create`) have no user; such a key sees its siblings.
  return p.userId ? q.where({ user_id: p.userId }) : q.whereNull('user_id');
}

export function createKeyService({ db, credentials }: { db: Knex; credentials: CredentialCache }) {
  return {
    async create(p: Principal, body: { name: string; kind: 'user' | 'agent'; quotas?: Quotas }) {
      if (p.credential !== 'jwt' || !p.userId)
        throw new AppError('auth.forbidden', 'Creating an API key needs a live session token (Authorization: Bearer)');
      return db.transaction(async (trx) => {
        const { id, key } = await createApiKey(trx, {
          workspaceId: p.workspaceId,
          name: body.name,
          kind: body.kind,
          userId: p.userId,
          quotas: body.quotas,
        });
        const row = await trx('api_keys').where({ id }).first();
        await appendAudit(trx, {
          ...auditBy(p),
          action: 'key.create',
          target: { type: 'key', id },
          details: { name: body.name, kind: body.kind, prefix: row.prefix },
        });
        return { ...recordOf(row), key };
      });
    },

    async list(p: Principal, page: { limit: number; cursor?: string }) {
      const q = ownedBy(db, p);
      if (page.cursor) q.where('id', '<', decodeCursor(page.cursor, 'key'));
      const out = pageOf(await q.orderBy('id', 'desc').limit(page.limit + 1), page.limit, recordOf);
      return { keys: out.items, nextCursor: out.nextCursor };
    },

    /** Idempotent; answered once every API instance is being told (it refuses the key from its next request on). */
    async revoke(p: Principal, id: string): Promise<ApiKeyRecord> {
      const row = await ownedBy(db, p).where({ id }).first();
      if (!row) throw notFound('API key');
      if (!row.revoked_at) {
        await db.transaction(async (trx) => {
          const revoked = await trx('api_keys')
            .where({ id })
            .whereNull('revoked_at')
            .update({ revoked_at: trx.fn.now() });
          // Two revokes at once: only the one that revoked it records it.
          if (revoked)
            await appendAudit(trx, {
              ...auditBy(p),
              action: 'key.revoke',
              target: { type: 'key', id },
              details: { prefix: row.prefix },
            });
        });
        await credentials.settle();
      }
      return recordOf(await db('api_keys').where({ id }).first());
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
