import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { IV_BYTES, open, seal } from '../crypto/aead';

// How one payload of ours is sealed: AES-256-GCM over the clear payload's protobuf, the IV before
// the ciphertext, and readable metadata naming what it was sealed for, which is also the
// authenticated data, so a payload whose labels were changed does not open. Format 2 (the
// `compute-codec-format` key) binds the scope and the run's workflow ID; format 1, what was written
// before it (no such key), bound the scope alone and still opens, its run label unverified. The two
// formats' authenticated data never coincide, so adding or dropping the format key does not open
// either.

export const ENCODING = 'binary/encrypted';
/** `ws_…`: sealed with that workspace's data key; `system`: with an operator key. */
export const META_SCOPE = 'compute-scope';
/** `ws` (the workspace's one data key) or the operator key's id. */
export const META_KEY = 'encryption-key-id';
/** The run it was sealed for: authenticated in format 2, absent when it was sealed outside a run. */
export const META_WORKFLOW = 'compute-workflow';
/** `2` on payloads that bind their run; absent on format 1. */
export const META_FORMAT = 'compute-codec-format';
const RUN_BOUND = '2';

/** What a sealed payload says of itself: a claim until it opens. */
export interface Sealing {
  scope: string;
  keyId?: string;
  workflowId?: string;
  format: 1 | 2;
}

/** What an opened payload was authenticated as sealed for. */
export interface SealedFor {
  scope: string;
  /** The run it is bound to; undefined when bound to none (sealed outside a run, or format 1). */
  workflowId?: string;
}

const text = (s: string) => new TextEncoder().encode(s);
const read = (b: Uint8Array | null | undefined) => (b ? new TextDecoder().decode(b) : undefined);

/** Format 2 is a JSON array (starts with `[`), format 1 a `temporal-payload:` string: never equal. */
const authenticatedData = (s: Pick<Sealing, 'scope' | 'workflowId' | 'format'>) =>
  s.format === 1
    ? `temporal-payload:${s.scope}`
    : JSON.stringify(['temporal-payload', 2, s.scope, s.workflowId ?? null]);

/** What a sealed payload's metadata claims, or undefined for one not ours. */
export function sealingOf(p: Payload): Sealing | undefined {
  if (read(p.metadata?.encoding) !== ENCODING) return undefined;
  const scope = read(p.metadata?.[META_SCOPE]);
  if (!scope) return undefined;
  const format = read(p.metadata?.[META_FORMAT]) === RUN_BOUND ? 2 : 1;
  return { scope, keyId: read(p.metadata?.[META_KEY]), workflowId: read(p.metadata?.[META_WORKFLOW]), format };
}

/** `p` sealed under `key` (named `keyId`) for `to`, in format 2. */
export function sealPayload(key: Buffer, keyId: string, p: Payload, to: SealedFor): Payload {
  const { iv, data } = seal(
    key,
    Buffer.from(temporal.api.common.v1.Payload.encode(p).finish()),
    authenticatedData({ ...to, format: 2 }),
  );
  return {
    metadata: {
      encoding: text(ENCODING),
      [META_FORMAT]: text(RUN_BOUND),
      [META_SCOPE]: text(to.scope),
      [META_KEY]: text(keyId),
      ...(to.workflowId ? { [META_WORKFLOW]: text(to.workflowId) } : {}),
    },
    data: Buffer.concat([iv, data]),
  };
}

/** The clear payload and what it was authenticated as sealed for, or undefined when it does not open under `key`. */
export function openPayload(
  key: Buffer,
  p: Payload,
  s: Sealing,
): { payload: Payload; sealedFor: SealedFor } | undefined {
  if (!p.data || p.data.length < IV_BYTES) return undefined;
  const bytes = Buffer.from(p.data);
  const opened = open(key, { iv: bytes.subarray(0, IV_BYTES), data: bytes.subarray(IV_BYTES) }, authenticatedData(s));
  if (!opened) return undefined;
  const workflowId = s.format === 2 ? s.workflowId : undefined;
  return {
    payload: temporal.api.common.v1.Payload.decode(opened) as Payload,
    sealedFor: { scope: s.scope, ...(workflowId ? { workflowId } : {}) },
  };
}
