import { createHash, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { newId, randomToken } from '../shared/ids';
import type { Refused } from './principal';
import type { Role } from './roles';

// Personal access tokens (`cpat_…`, CONTRACT §5) live in api_keys as kind `token`: the revocation
// trigger and every instance's credential cache serve them as they serve keys. The token is
// `cpat_` + a 10-character lookup prefix + a 32-character secret; only the secret's hash is kept.

export const TOKEN_PREFIX = 'cpat_';
const LOOKUP_CHARS = 10;
const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

export interface TokenGrant {
  id: string;
  workspaceId: string;
  userId: string;
  email: string;
  role: Role;
  /** Epoch ms; undefined: never expires. */
  expiresAt?: number;
}

export async function createAccessToken(
  db: Knex | Knex.Transaction,
  opts: { workspaceId: string; userId: string; name: string; role: Role; expiresAt: Date | null },
): Promise<{ id: string; token: string }> {
  const id = newId('key');
  const lookup = randomToken(8).toLowerCase().slice(0, LOOKUP_CHARS);
  const secret = randomToken(24).slice(0, 32);
  await db('api_keys').insert({
    id,
    workspace_id: opts.workspaceId,
    prefix: `${TOKEN_PREFIX}${lookup}`,
    secret_hash: hashSecret(secret),
    name: opts.name,
    kind: 'token',
    user_id: opts.userId,
    role: opts.role,
    expires_at: opts.expiresAt,
  });
  return { id, token: `${TOKEN_PREFIX}${lookup}${secret}` };
}

/** The grant of a presented token; null for anything unknown or malformed, `Refused` for a revoked or expired one. */
export async function authenticateAccessToken(db: Knex, presented: string): Promise<TokenGrant | Refused | null> {
  const split = TOKEN_PREFIX.length + LOOKUP_CHARS;
  if (!presented.startsWith(TOKEN_PREFIX) || presented.length !== split + 32) return null;
  const row = await db('api_keys as k')
    .join('users as u', 'u.id', 'k.user_id')
    .where({ 'k.prefix': presented.slice(0, split), 'k.kind': 'token' })
    .first(
      'k.id',
      'k.workspace_id',
      'k.user_id',
      'k.role',
      'k.secret_hash',
      'k.expires_at',
      'k.revoked_at',
      'u.email',
      db.raw('k.expires_at <= now() AS expired'),
    );
  if (!row) return null;
  const given = Buffer.from(hashSecret(presented.slice(split)), 'hex');
  if (!timingSafeEqual(given, Buffer.from(row.secret_hash, 'hex'))) return null;
  if (row.revoked_at || row.expired) {
    const reason = row.revoked_at ? 'revoked' : 'expired';
    return {
      refused: {
        workspaceId: row.workspace_id,
        actor: { type: 'token', id: row.id, email: row.email },
        reason,
        target: { type: 'token', id: row.id },
      },
    };
  }
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    userId: row.user_id,
    email: row.email,
    role: row.role,
    expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : undefined,
  };
}
