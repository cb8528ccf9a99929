import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { SharedSettings } from '../config';
import { KEY_BYTES, keyIdOf, open, seal } from './aead';
import { resolveOperatorKeys } from './operator-keys';

// Envelope keys: each workspace has a data key of its own, made at its first use and stored only
// wrapped by the operator's current key (TEMPORAL_CODEC_KEYS). A workspace's sealed values name
// no operator key, so rotating the operator key re-wraps one row per workspace and nothing else.

export interface DataKeys {
  /** The id of the operator key new data keys are wrapped with. */
  readonly currentKeyId: string;
  /** The workspace's data key, made and stored on first use. */
  of(workspaceId: string): Promise<Buffer>;
  /** Wraps again, with the current operator key, every data key wrapped with another; how many. */
  rewrap(): Promise<number>;
}

interface Row {
  workspace_id: string;
  wrapped_by: string;
  iv: Buffer;
  wrapped: Buffer;
}

const aadOf = (workspaceId: string) => `data-key:${workspaceId}`;
/** Data keys kept in memory: they never change (a rotation re-wraps, not replaces, them). */
const CACHE_MAX = 10_000;

export function createDataKeys(db: Knex, operatorKeys: Buffer[]): DataKeys {
  if (operatorKeys.length === 0) throw new Error('at least one operator key (TEMPORAL_CODEC_KEYS) is needed');
  const byId = new Map(operatorKeys.map((k) => [keyIdOf(k), k] as const));
  const currentKeyId = keyIdOf(operatorKeys[0]);
  const cache = new Map<string, Promise<Buffer>>();

  const unwrap = (row: Row): Buffer => {
    const key = byId.get(row.wrapped_by);
    if (!key)
      throw new Error(
        `workspace ${row.workspace_id}: its data key is wrapped with operator key ${row.wrapped_by}, which TEMPORAL_CODEC_KEYS does not list`,
      );
    const dataKey = open(key, { iv: row.iv, data: row.wrapped }, aadOf(row.workspace_id));
    if (!dataKey || dataKey.length !== KEY_BYTES)
      throw new Error(`workspace ${row.workspace_id}: its data key does not unwrap (altered, or another workspace's)`);
    return dataKey;
  };
  const wrap = (workspaceId: string, dataKey: Buffer) => {
    const { iv, data } = seal(byId.get(currentKeyId)!, dataKey, aadOf(workspaceId));
    return { wrapped_by: currentKeyId, iv, wrapped: data };
  };

  async function load(workspaceId: string): Promise<Buffer> {
    const found: Row | undefined = await db('workspace_data_keys').where({ workspace_id: workspaceId }).first();
    if (found) return unwrap(found);
    // Two instances may make one at once: the first insert wins, and both use what is stored.
    await db('workspace_data_keys')
      .insert({ workspace_id: workspaceId, ...wrap(workspaceId, randomBytes(KEY_BYTES)) })
      .onConflict('workspace_id')
      .ignore();
    return unwrap(await db('workspace_data_keys').where({ workspace_id: workspaceId }).first());
  }

  return {
    currentKeyId,
    of(workspaceId) {
      let key = cache.get(workspaceId);
      if (!key) {
        if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
        key = load(workspaceId);
        key.catch(() => cache.delete(workspaceId));
        cache.set(workspaceId, key);
      }
      return key;
    },
    async rewrap() {
      const rows: Row[] = await db('workspace_data_keys').whereNot('wrapped_by', currentKeyId).select('*');
      let done = 0;
      for (const row of rows) {
        // Only if still as read, so instances starting together do not undo each other.
        done += await db('workspace_data_keys')
          .where({ workspace_id: row.workspace_id, wrapped_by: row.wrapped_by })
          .update({ ...wrap(row.workspace_id, unwrap(row)), rewrapped_at: db.fn.now() });
      }
      return done;
    },
  };
}

/** The operator keys that wrap data keys: TEMPORAL_CODEC_KEYS (required in production). */
export const resolveCodecKeys = (config: Pick<SharedSettings, 'temporal' | 'dataDir'>): Promise<Buffer[]> =>
  resolveOperatorKeys(config, {
    configured: config.temporal.codecKeys,
    variable: 'TEMPORAL_CODEC_KEYS',
    file: 'codec-key',
  });
