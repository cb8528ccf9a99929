import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { seal } from '../../src/crypto/aead';

/**
 * A payload sealed as the codec wrote it before format 2, byte for byte: the workspace alone as
 * authenticated data, the run only a label. Written here, not by src/, so the test holds the old
 * format fixed whatever the codec becomes.
 */
export function legacySealed(
  workspaceKey: Buffer,
  workspaceId: string,
  workflowId: string | undefined,
  clear: Payload,
): Payload {
  const { iv, data } = seal(
    workspaceKey,
    Buffer.from(temporal.api.common.v1.Payload.encode(clear).finish()),
    `temporal-payload:${workspaceId}`,
  );
  return {
    metadata: {
      encoding: Buffer.from('binary/encrypted'),
      'compute-scope': Buffer.from(workspaceId),
      'encryption-key-id': Buffer.from('ws'),
      ...(workflowId ? { 'compute-workflow': Buffer.from(workflowId) } : {}),
    },
    data: Buffer.concat([iv, data]),
  };
}

/** `p` with its metadata `key` set to `value` (a relabelling: the sealed bytes unchanged). */
export const relabelled = (p: Payload, key: string, value: string): Payload => ({
  ...p,
  metadata: { ...p.metadata, [key]: Buffer.from(value) },
});

/** `p` without its metadata `key`. */
export const unlabelled = (p: Payload, key: string): Payload => ({
  ...p,
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).filter(([k]) => k !== key)),
});
