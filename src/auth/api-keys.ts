import { createHash, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { newId, randomToken } from '../shared/ids';
import type { Principal, Refused } from './principal';

/** `managed`: an operator's managed-pool key, which only registers managed-pool agents (CONTRACT §9). */
export type KeyKind = 'user' | 'agent' | 'node' | 'managed';

export interface Quotas {
  maxJobsPerHour?: number;
  maxConcurrentJobs?: number;
  allowedJobTypes?: string[];
}

// Secrets are 192 random bits, so a plain SHA-256 is a sound at-rest hash (no KDF needed).
const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
const PREFIX_LETTER: Record<KeyKind, string> = { user: 'u', agent: 'a', node: 'n', managed: 'm' };

/** Mints `<prefix>_<secret>`; the whole key is returned only here, once. */
export async function createApiKey(
  db: Knex,
  opts: { workspaceId: string; name: string; kind: KeyKind; agentId?: string; userId?: string; quotas?: Quotas },
): Promise<{ id: string; prefix: string; key: string }> {
  const id = newId('key');
  const prefix = `ck${PREFIX_LETTER[opts.kind]}${randomToken(8).toLowerCase().slice(0, 10)}`;
  const secret = randomToken(24);
  await db('api_keys').insert({
    id,
    workspace_id: opts.workspaceId,
    prefix,
    secret_hash: hashSecret(secret),
    name: opts.name,
    kind: opts.kind,
    agent_id: opts.agentId ?? null,
    user_id: opts.userId ?? null,
    quotas: opts.quotas ? JSON.stringify(opts.quotas) : null,
  });
  return { id, prefix, key: `${prefix}_${secret}` };
}

const keyRows = (db: Knex) =>
  db('api_keys as k')
    // A node key acts for the user who registered its node (with a session or one of their keys).
    .leftJoin('agents as g', (on) => on.on('g.id', 'k.agent_id').andOnVal('k.kind', '=', 'node'))
    .leftJoin('api_keys as rk', 'rk.id', 'g.registered_with_key_id')
    .whereNot({ 'k.kind': 'token' })
    .select(
      'k.*',
      db.raw('coalesce(k.user_id, g.registered_by_user_id, rk.user_id) AS owner_user_id'),
      db.raw("(k.kind = 'managed' OR g.pool = 'managed') AS managed_pool"),
      db.raw("(k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute') AS stamp_due"),
    );

/** `<prefix>_<secret>` split at its last underscore; undefined for what cannot be a key. */
function prefixOf(presented: string): string | undefined {
  const sep = presented.lastIndexOf('_');
  return sep <= 0 || presented.length > 200 ? undefined : presented.slice(0, sep);
}

/**
 * Resolves a presented key from the database; null for anything unknown or malformed, `Refused`
 * for a revoked one. A key's first use is stamped at once; later stamps go to `stampLater` when
 * given (a fleet's keys come back each time their cache entry expires).
 */
export async function authenticateApiKey(
  db: Knex,
  presented: string,
  stampLater?: (keyId: string) => void,
): Promise<Principal | Refused | null> {
  const prefix = prefixOf(presented);
  if (!prefix) return null;
  const row = (await keyRows(db).where({ 'k.prefix': prefix }).first()) as KeyRow | undefined;
  return row ? principalOfKey(db, row, presented, stampLater) : null;
}

/** authenticateApiKey for many keys in one statement (the cache's refreshes, see AuthService). */
export async function authenticateApiKeys(
  db: Knex,
  presented: readonly string[],
  stampLater?: (keyId: string) => void,
): Promise<Array<Principal | Refused | null>> {
  const prefixes = [...new Set(presented.map(prefixOf).filter((p): p is string => p !== undefined))];
  const rows = (prefixes.length ? await keyRows(db).whereIn('k.prefix', prefixes) : []) as KeyRow[];
  const byPrefix = new Map(rows.map((r) => [r.prefix, r]));
  return presented.map((p) => {
    const row = byPrefix.get(prefixOf(p) ?? '');
    return row ? principalOfKey(db, row, p, stampLater) : null;
  });
}

/** A row of keyRows. */
interface KeyRow {
  id: string;
  prefix: string;
  kind: Principal['kind'];
  workspace_id: string;
  secret_hash: string;
  agent_id: string | null;
  user_id: string | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  quotas: unknown;
  owner_user_id: string | null;
  managed_pool: boolean | null;
  stamp_due: boolean;
}

function principalOfKey(
  db: Knex,
  row: KeyRow,
  presented: string,
  stampLater?: (keyId: string) => void,
): Principal | Refused | null {
  const given = Buffer.from(hashSecret(presented.slice(presented.lastIndexOf('_') + 1)), 'hex');
  if (!timingSafeEqual(given, Buffer.from(row.secret_hash, 'hex'))) return null;
  const actor =
    row.kind === 'node' ? ({ type: 'node', id: row.agent_id! } as const) : ({ type: 'key', id: row.id } as const);
  if (row.revoked_at)
    return {
      refused: { workspaceId: row.workspace_id, actor, reason: 'revoked', target: { type: 'key', id: row.id } },
    };
  // Coarse last-used stamp: no statement at all while the stamp is fresh.
  if (row.stamp_due) {
    if (stampLater && row.last_used_at) stampLater(row.id);
    else stampLastUsed(db, row.id);
  }
  return {
    workspaceId: row.workspace_id,
    kind: row.kind,
    credential: 'api_key',
    // Surface A's keys do member's work; a key an operator minted (no user) is the workspace's admin.
    // Node keys and managed-pool keys are no member of anything: they call the agent protocol only.
    role:
      row.kind === 'node' || row.kind === 'managed'
        ? undefined
        : row.user_id || row.kind === 'agent'
          ? 'member'
          : 'admin',
    actor,
    keyId: row.id,
    userId: row.user_id ?? undefined,
    agentId: row.agent_id ?? undefined,
    hasQuotas: Boolean(row.quotas),
    // The managed pool is the operator's fleet, not a customer's: each of its credentials has a budget of its own.
    rateSubject: row.owner_user_id
      ? `usr:${row.owner_user_id}`
      : row.managed_pool
        ? `key:${row.id}`
        : `ws:${row.workspace_id}`,
    credentialId: row.id,
  };
}

/**
 * Stamps a key as used now, at most once a minute: the guard in the UPDATE settles instances
 * racing for the same minute. Fire and forget: a lost stamp costs nothing but its minute.
 */
export function stampLastUsed(db: Knex, keyId: string): void {
  void db('api_keys')
    .where({ id: keyId })
    .where((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', db.raw("now() - interval '1 minute'")))
    .update({ last_used_at: db.fn.now() })
    .catch(() => undefined);
}

/** False once the key is revoked: long-lived requests re-check the credential they began with. */
export async function apiKeyStillValid(db: Knex, keyId: string): Promise<boolean> {
  return Boolean(await db('api_keys').where({ id: keyId }).whereNull('revoked_at').first('id'));
}

export async function revokeNodeKeys(db: Knex, agentId: string, exceptKeyId?: string): Promise<void> {
  const q = db('api_keys').where({ agent_id: agentId, kind: 'node' }).whereNull('revoked_at');
  if (exceptKeyId) q.whereNot({ id: exceptKeyId });
  await q.update({ revoked_at: db.fn.now() });
}
