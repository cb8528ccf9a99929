import { hash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { NOTIFY } from '../db/channels';
import type { Notifier } from '../db/notifier';
import type { TokenClaims } from './jwt';
import { type Principal, type Refused, isRefused } from './principal';
import type { Role } from './roles';

/** What a request's budget and rendering need of its workspace. */
export interface WorkspaceSettings {
  id: string;
  plan: 'hobby' | 'payg' | 'team' | 'enterprise';
  requestsPerSecond: number | null;
  burst: number | null;
}

/** A key's last-used stamp is written at most this often (the key list shows it to the minute). */
export const STAMP_EVERY_MS = 60_000;

export interface CredentialCacheOptions {
  db: Knex;
  notifier: Notifier;
  /** How long an entry is trusted without a notification; 0 turns the cache off. */
  ttlMs: number;
  /** Entries per kind; the oldest go first. */
  maxEntries: number;
  /** Writes a key's last-used stamp; called from cache hits at most once per key per STAMP_EVERY_MS. */
  stamp: (keyId: string) => void;
}

interface KeyEntry {
  principal: Principal;
  at: number;
  stampedAt: number;
}

// One-shot: about half the CPU of createHash().update().digest(), on every request with a key.
const sha256 = (s: string) => hash('sha256', s, 'base64');

/**
 * Credentials resolved once per API instance and then served from memory: a request with a
 * known key or session costs no statement. Every change that can withdraw one is announced on
 * NOTIFY (by triggers on api_keys and workspace_members), and each instance forgets the entry
 * when it hears it, so a revoked key fails everywhere as soon as the notification lands.
 *
 * Three guards keep a stale entry out:
 * - a lookup that was in flight when any change was heard is not cached (the generation moved);
 * - while the LISTEN connection is down nothing is served from memory, and everything is
 *   dropped when it goes and again when it is back (notifications may have been missed);
 * - entries expire after `ttlMs` regardless.
 */
export function createCredentialCache(o: CredentialCacheOptions) {
  let generation = 0;
  const keys = new Map<string, KeyEntry>();
  const hashOfKeyId = new Map<string, string>();
  const members = new Map<string, { value: Role; at: number }>();
  const workspaces = new Map<string, { value: WorkspaceSettings; at: number }>();
  const sessions = new Map<string, TokenClaims>();
  /** Markers of `settle` waiting to come back. */
  const heard = new Map<string, () => void>();

  const forgetKey = (keyId: string) => {
    const hash = hashOfKeyId.get(keyId);
    if (hash) keys.delete(hash);
    hashOfKeyId.delete(keyId);
  };
  const forgetSession = (sessionId: string) => {
    for (const [token, claims] of sessions) if (claims.sessionId === sessionId) sessions.delete(token);
  };
  const clear = () => {
    generation++;
    sessions.clear();
    keys.clear();
    hashOfKeyId.clear();
    members.clear();
    workspaces.clear();
  };
  const forget = (payload: string) => {
    generation++;
    if (payload.startsWith('key:')) forgetKey(payload.slice(4));
    else if (payload.startsWith('member:')) members.delete(payload.slice(7));
    else if (payload.startsWith('workspace:')) workspaces.delete(payload.slice(10));
    else if (payload.startsWith('session:')) forgetSession(payload.slice(8));
    else clear();
  };
  o.notifier.subscribe(NOTIFY.credentials, (payload) => {
    if (payload.startsWith('sync:')) heard.get(payload)?.();
    else forget(payload);
  });
  o.notifier.onReset(clear);

  const usable = () => o.ttlMs > 0 && o.notifier.live;
  const fresh = (at: number, now: number) => now - at < o.ttlMs;
  /** Drops the oldest entries of a map past the bound (Maps iterate in insertion order). */
  const bound = <V>(map: Map<string, V>, onDrop?: (key: string, value: V) => void) => {
    for (const [key, value] of map) {
      if (map.size <= o.maxEntries) return;
      map.delete(key);
      onDrop?.(key, value);
    }
  };

  /**
   * A value from `map` while it is fresh and the listener live, else from `load`; kept only when
   * found (absence is never cached) and no change was heard while loading.
   */
  const lookup = async <V>(
    map: Map<string, { value: V; at: number }>,
    id: string,
    load: () => Promise<V | null>,
  ): Promise<V | null> => {
    const now = Date.now();
    const hit = map.get(id);
    if (hit && usable() && fresh(hit.at, now)) return hit.value;
    const seen = generation;
    const value = await load();
    if (value && usable() && seen === generation) {
      map.delete(id);
      map.set(id, { value, at: now });
      bound(map);
    }
    return value;
  };

  return {
    /**
     * The principal of a presented API key, from memory when known; `load` reads the database,
     * told whether it renews an entry this instance held (past its TTL, or while not listening).
     */
    async apiKey(
      presented: string,
      load: (renewal: boolean) => Promise<Principal | Refused | null>,
    ): Promise<Principal | Refused | null> {
      const hash = sha256(presented);
      const now = Date.now();
      const hit = keys.get(hash);
      if (hit && usable() && fresh(hit.at, now)) {
        if (now - hit.stampedAt >= STAMP_EVERY_MS) {
          hit.stampedAt = now;
          o.stamp(hit.principal.keyId!);
        }
        return hit.principal;
      }
      const seen = generation;
      const principal = await load(hit !== undefined);
      if (principal && !isRefused(principal) && principal.keyId && usable() && seen === generation) {
        keys.delete(hash);
        keys.set(hash, { principal, at: now, stampedAt: now });
        hashOfKeyId.set(principal.keyId, hash);
        bound(keys, (_, dropped) => hashOfKeyId.delete(dropped.principal.keyId!));
      }
      return principal;
    },

    /** Whether the key is known valid from memory; undefined when the database must be asked. */
    keyKnownValid(keyId: string): boolean | undefined {
      const hash = hashOfKeyId.get(keyId);
      const hit = hash ? keys.get(hash) : undefined;
      return hit && usable() && fresh(hit.at, Date.now()) ? true : undefined;
    },

    /**
     * The user's role in the workspace (null: not a member), from memory when known; `load` reads
     * the database. Only memberships are kept: one added later is read when first needed.
     */
    memberRole: (userId: string, workspaceId: string, load: () => Promise<Role | null>): Promise<Role | null> =>
      lookup(members, `${userId}:${workspaceId}`, load),

    /** A workspace's plan and budget (null: no such workspace), from memory when known. */
    workspace: (
      workspaceId: string,
      load: () => Promise<WorkspaceSettings | null>,
    ): Promise<WorkspaceSettings | null> => lookup(workspaces, workspaceId, load),

    /**
     * A session token's claims, verified once: `verify` checks the signature and claims, and
     * `revoked` whether sign-out ended it. Kept until it expires, or until its revocation is heard
     * (its membership is checked apart).
     */
    async session(
      token: string,
      verify: () => Promise<TokenClaims | null>,
      revoked: (sessionId: string) => Promise<boolean>,
    ): Promise<TokenClaims | null> {
      const hit = sessions.get(token);
      if (hit && usable() && Date.now() < hit.expiresAt!) return hit;
      const seen = generation;
      const claims = await verify();
      if (claims?.sessionId && (await revoked(claims.sessionId))) return null;
      if (claims && usable() && seen === generation) {
        sessions.delete(token);
        sessions.set(token, claims);
        bound(sessions);
      }
      return claims;
    },

    /**
     * Resolves once this instance has heard every credential change committed before the call:
     * it notifies a marker of its own and waits (up to `waitMs`) for it to come back, and
     * notifications arrive in commit order. PostgreSQL sends them to every instance's listener at
     * the same moment, so a caller that revoked something and then settles is answered only once
     * all instances are being told.
     */
    async settle(waitMs = 1_000): Promise<void> {
      if (!o.notifier.live) return;
      const marker = `sync:${randomUUID()}`;
      let timer: NodeJS.Timeout | undefined;
      const arrived = new Promise<void>((resolve) => {
        heard.set(marker, resolve);
        timer = setTimeout(resolve, waitMs);
      });
      try {
        await o.db.raw('SELECT pg_notify(?, ?)', [NOTIFY.credentials, marker]);
        await arrived;
      } finally {
        clearTimeout(timer);
        heard.delete(marker);
      }
    },
  };
}

export type CredentialCache = ReturnType<typeof createCredentialCache>;
