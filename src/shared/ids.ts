import { randomBytes, randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// Opaque, prefixed, time-sortable IDs (CONTRACT §1). ULIDs sort by creation time, so an ID
// doubles as a stable pagination cursor.
// Its random part comes from the system's CSPRNG as the library's own does (a byte a character),
// drawn from a pool filled 4 KiB at a time: the library's default asks the OS for each character,
// 16 calls an ID and about 0.4 ms of the API's CPU a job.
const pool = Buffer.alloc(4096);
let drawn = pool.length;
const pooledByte = () => {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  return pool[drawn++] / 256;
};
const next = monotonicFactory(pooledByte);

export type IdPrefix =
  'job' | 'agent' | 'ws' | 'key' | 'usr' | 'lease' | 'otp' | 'art' | 'aud' | 'wh' | 'evt' | 'dlv' | 'inv';

/** Webhooks made before their IDs took the contract's `wh_` prefix; still found and paged. */
export const LEGACY_WEBHOOK_PREFIX = 'whk';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${next().toLowerCase()}`;
}

/** URL-safe random token without `_`, so `<prefix>_<secret>` splits unambiguously. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url').replace(/[-_]/g, 'x');
}
