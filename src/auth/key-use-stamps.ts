import type { Knex } from 'knex';

// The last-used stamps of keys served from the credential cache, written in batches: a fleet's
// keys come due once a minute each (10 000 agents: 167 a second), and one statement a second
// stamps them all instead of one transaction each. The stamp is shown to the minute, and a lost
// one (a crash before its window closes) costs nothing but that minute, so it does not wait for
// the disk either.

/** How long a stamp waits for others to share its statement. */
const WINDOW_MS = 1000;
const BATCH_MAX = 5000;

const STAMP = `WITH c AS (SELECT set_config('synchronous_commit', 'off', true))
  UPDATE api_keys SET last_used_at = now()
  WHERE id = ANY(?::text[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
    AND (SELECT count(*) FROM c) = 1`;

export interface KeyUseStamps {
  /** Stamps the key as used now, within WINDOW_MS; at most once a minute per key (the guard settles instances racing). */
  stamp(keyId: string): void;
  /** Writes what is pending (on stop). */
  flush(): Promise<void>;
}

export function keyUseStamps(db: Knex): KeyUseStamps {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = async () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return;
    const ids = [...pending];
    pending = new Set();
    await db.raw(STAMP, [ids]).catch(() => undefined);
  };
  return {
    stamp(keyId) {
      pending.add(keyId);
      if (pending.size >= BATCH_MAX) void flush();
      else if (!timer) timer = setTimeout(() => void flush(), WINDOW_MS).unref();
    },
    flush,
  };
}
