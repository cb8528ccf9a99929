import { createHash, createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import stableStringify from 'safe-stable-stringify';
import { AppError } from '../shared/errors';
import { newId, randomToken } from '../shared/ids';

/** CONTRACT §5: the first answer is replayed for 24 h. */
const KEEP_HOURS = 24;

/** What a request with an `Idempotency-Key` is to do. */
export type Claim =
  /** Carry the request out, making the job `jobId` (again: an earlier attempt may have begun it). */
  | { kind: 'carry'; jobId: string; holder: string }
  /** Answer what the first request answered. */
  | { kind: 'replay'; status: number; body: unknown };

/**
 * The request's identity for comparison: its parsed body (key order ignored), as an HMAC under the
 * workspace's data key. The body holds the job's env, so a plain hash kept in the database would
 * let a backup's reader test guesses of those secrets offline; without the operator key that
 * unwraps the data key, this one tells nothing. `v1:` tells it from the plain hashes of rows kept
 * before it, which `legacy` still matches until they expire (24 h).
 */
export function fingerprintOf(dataKey: Buffer, body: unknown): Fingerprint {
  const text = stableStringify(body) ?? '';
  return {
    // base64url, so the prefix and the MAC fit the column's 64 characters.
    current: `v1:${createHmac('sha256', dataKey).update('idempotency-fingerprint\0').update(text).digest('base64url')}`,
    legacy: createHash('sha256').update(text).digest('hex'),
  };
}

export interface Fingerprint {
  /** What is stored for a key now. */
  current: string;
  /** What a row stored before keyed fingerprints holds for the same body. */
  legacy: string;
}

/**
 * Idempotency keys of POST /v0/jobs, per workspace. A key names its job when first seen, so every
 * attempt to carry a request out makes that job and no other. One attempt holds the key at a time
 * (another request meanwhile is 409); a holder that crashed loses it after `holdMs`, and the next
 * request with the key carries the request out again and finishes what the crash left. Every
 * comparison of times is on the database's clock.
 */
export function createIdempotencyKeys(db: Knex, opts: { holdMs: number }) {
  const hold = db.raw('now() + make_interval(secs => ?)', [opts.holdMs / 1000]);

  async function claim(workspaceId: string, key: string, fingerprint: Fingerprint): Promise<Claim> {
    const holder = randomToken(12);
    // Swept or replaced between two statements: a few rounds settle it.
    for (let round = 0; round < 4; round++) {
      // New, or expired and not yet swept: this request takes the key with a job of its own.
      const [taken] = await db('idempotency_keys')
        .insert({
          workspace_id: workspaceId,
          key,
          fingerprint: fingerprint.current,
          job_id: newId('job'),
          holder,
          holder_until: hold,
          expires_at: db.raw(`now() + interval '${KEEP_HOURS} hours'`),
        })
        .onConflict(['workspace_id', 'key'])
        .merge([
          'fingerprint',
          'job_id',
          'holder',
          'holder_until',
          'response_status',
          'response_body',
          'created_at',
          'expires_at',
        ])
        .where('idempotency_keys.expires_at', '<=', db.fn.now())
        .returning(['job_id', 'holder']);
      if (taken?.holder === holder) return { kind: 'carry', jobId: taken.job_id, holder };

      const row = await db('idempotency_keys')
        .where({ workspace_id: workspaceId, key })
        .where('expires_at', '>', db.fn.now())
        .first(
          'fingerprint',
          'job_id',
          'holder',
          'response_status',
          'response_body',
          db.raw('holder_until > now() AS held'),
        );
      if (!row) continue;
      if (row.fingerprint !== fingerprint.current && row.fingerprint !== fingerprint.legacy) {
        throw new AppError(
          'idempotency.mismatch',
          'This Idempotency-Key was used with another request body; use a new key for a new request',
        );
      }
      if (row.response_status !== null) return { kind: 'replay', status: row.response_status, body: row.response_body };
      if (row.held) {
        throw new AppError(
          'resource.conflict',
          'A request with this Idempotency-Key is still in progress; retry once it has finished',
          { reason: 'idempotency_key_in_use' },
        );
      }
      // Its holder is gone (a crash): carry the request out again, for the same job.
      const [over] = await db('idempotency_keys')
        .where({ workspace_id: workspaceId, key, holder: row.holder })
        .whereNull('response_status')
        .where('holder_until', '<=', db.fn.now())
        .update({ holder, holder_until: hold })
        .returning('job_id');
      if (over) return { kind: 'carry', jobId: over.job_id, holder };
    }
    throw new AppError('resource.conflict', 'The Idempotency-Key is contended; retry', {
      reason: 'idempotency_key_in_use',
    });
  }

  return {
    claim,

    /** Keeps the answer for replay. Any attempt that made the key's job gives the same answer. */
    async complete(workspaceId: string, key: string, jobId: string, status: number, body: unknown): Promise<void> {
      await db('idempotency_keys')
        .where({ workspace_id: workspaceId, key, job_id: jobId })
        .update({ response_status: status, response_body: JSON.stringify(body), holder_until: db.fn.now() });
    },

    /** Lets the key go after a failure that made no job, so a retry starts afresh. */
    async release(workspaceId: string, key: string, holder: string): Promise<void> {
      await db('idempotency_keys')
        .where({ workspace_id: workspaceId, key, holder })
        .whereNull('response_status')
        .delete();
    },

    /** Removes expired keys, a batch at a time; the number removed. */
    async sweep(batch = 1000): Promise<number> {
      return db('idempotency_keys')
        .whereIn(
          ['workspace_id', 'key'],
          db('idempotency_keys').select('workspace_id', 'key').where('expires_at', '<=', db.fn.now()).limit(batch),
        )
        .delete();
    },
  };
}

export type IdempotencyKeys = ReturnType<typeof createIdempotencyKeys>;
