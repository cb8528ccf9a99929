import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Knex } from 'knex';
import { keyIdOf, open, seal } from '../crypto/aead';
import type { DataKeys } from '../crypto/data-keys';

// Temporal holds only ciphertext (issue 33): every payload of ours (inputs, results, Update
// arguments and answers, failures' details, a run's summary) is sealed with AES-256-GCM before it
// leaves the process. A job's payloads, and those of the webhook lanes about it, are sealed with
// its workspace's data key; the rest (meter, billing periods, redeliveries) with the operator's
// current key. What it was sealed for travels in clear metadata and is authenticated: a payload
// moved to another workspace's run does not open. Payloads without our encoding (runs started
// before the codec) pass through.

export const ENCODING = 'binary/encrypted';
/** `ws_…`: sealed with that workspace's data key; `system`: with an operator key. */
export const META_SCOPE = 'compute-scope';
/** `ws` (the workspace's one data key) or the operator key's id. */
export const META_KEY = 'encryption-key-id';
/** The run it was sealed for, readable: what a decode through the codec endpoint is audited as. */
export const META_WORKFLOW = 'compute-workflow';
const SYSTEM = 'system';
const WORKSPACE_KEY = 'ws';
const JOB_ID = /job_[0-9a-z]{26}/;

const text = (s: string) => new TextEncoder().encode(s);
const read = (b: Uint8Array | null | undefined) => (b ? new TextDecoder().decode(b) : undefined);
const aadOf = (scope: string) => `temporal-payload:${scope}`;

export interface Sealing {
  scope: string;
  workflowId?: string;
}

/** What a sealed payload says about itself (its metadata), or undefined for one not ours. */
export function sealingOf(p: Payload): Sealing | undefined {
  if (read(p.metadata?.encoding) !== ENCODING) return undefined;
  const scope = read(p.metadata?.[META_SCOPE]);
  return scope ? { scope, workflowId: read(p.metadata?.[META_WORKFLOW]) } : undefined;
}

/** The workspace of the job a workflow ID names (a job's run, or a webhook lane of it), cached. */
export function jobWorkspaces(db: Knex, max = 100_000) {
  const cache = new Map<string, string>();
  return async (workflowId: string): Promise<string | undefined> => {
    const jobId = JOB_ID.exec(workflowId)?.[0];
    if (!jobId) return undefined;
    const hit = cache.get(jobId);
    if (hit) return hit;
    const row = await db('jobs').where({ id: jobId }).first('workspace_id');
    if (!row) return undefined;
    if (cache.size >= max) cache.delete(cache.keys().next().value!);
    cache.set(jobId, row.workspace_id);
    return row.workspace_id as string;
  };
}

export interface ComputeCodec extends PayloadCodec {
  /** The payload opened, or undefined when it does not open (altered, moved, a key not listed). */
  tryOpen(p: Payload): Promise<Payload | undefined>;
  /** Seals `payloads` for `workspaceId` (the codec endpoint's encode: no run to name it). */
  encodeFor(workspaceId: string, payloads: Payload[]): Promise<Payload[]>;
}

export function createPayloadCodec(o: { dataKeys: DataKeys; operatorKeys: Buffer[]; workspaceOf: (workflowId: string) => Promise<string | undefined> }): ComputeCodec {
  const operators = new Map(o.operatorKeys.map((k) => [keyIdOf(k), k] as const));
  const currentOperator = keyIdOf(o.operatorKeys[0]);

  const scopeOf = async (context?: SerializationContext) => {
    const workflowId = context?.workflowId;
    return { scope: (workflowId && (await o.workspaceOf(workflowId))) || SYSTEM, workflowId };
  };
  const keyFor = async (scope: string, keyId: string | undefined) =>
    scope === SYSTEM ? (keyId ? operators.get(keyId) : undefined) : keyId === WORKSPACE_KEY ? o.dataKeys.of(scope) : undefined;

  async function tryOpen(p: Payload): Promise<Payload | undefined> {
    const sealing = sealingOf(p);
    if (!sealing || !p.data || p.data.length < 12) return undefined;
    const key = await keyFor(sealing.scope, read(p.metadata?.[META_KEY])).catch(() => undefined);
    if (!key) return undefined;
    const bytes = Buffer.from(p.data);
    const opened = open(key, { iv: bytes.subarray(0, 12), data: bytes.subarray(12) }, aadOf(sealing.scope));
    return opened ? (temporal.api.common.v1.Payload.decode(opened) as Payload) : undefined;
  }

  async function sealAll(scope: string, workflowId: string | undefined, payloads: Payload[]): Promise<Payload[]> {
    const keyId = scope === SYSTEM ? currentOperator : WORKSPACE_KEY;
    const key = scope === SYSTEM ? operators.get(currentOperator)! : await o.dataKeys.of(scope);
    return payloads.map((p) => {
      if (sealingOf(p)) return p;
      const { iv, data } = seal(key, Buffer.from(temporal.api.common.v1.Payload.encode(p).finish()), aadOf(scope));
      return {
        metadata: { encoding: text(ENCODING), [META_SCOPE]: text(scope), [META_KEY]: text(keyId), ...(workflowId ? { [META_WORKFLOW]: text(workflowId) } : {}) },
        data: Buffer.concat([iv, data]),
      };
    });
  }

  return {
    tryOpen,

    async encode(payloads, context) {
      if (payloads.length === 0) return payloads;
      const { scope, workflowId } = await scopeOf(context);
      return sealAll(scope, workflowId, payloads);
    },

    encodeFor: (workspaceId, payloads) => sealAll(workspaceId, undefined, payloads),

    async decode(payloads, context) {
      const expected = context?.workflowId ? await o.workspaceOf(context.workflowId) : undefined;
      return Promise.all(
        payloads.map(async (p) => {
          const sealing = sealingOf(p);
          if (!sealing) return p;
          if (expected && sealing.scope !== expected) throw new Error(`a payload sealed for ${sealing.scope} reached a run of ${expected}`);
          const opened = await tryOpen(p);
          if (!opened) throw new Error(`a payload sealed for ${sealing.scope} does not open (altered, or its key is not listed)`);
          return opened;
        }),
      );
    },
  };
}
