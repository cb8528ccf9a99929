import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// Opaque, prefixed, time-sortable IDs (CONTRACT §1). ULIDs sort by creation time, so an ID
// doubles as a stable pagination cursor.
const next = monotonicFactory();

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
