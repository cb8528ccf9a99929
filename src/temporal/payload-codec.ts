import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import type { Knex } from 'knex';
import { keyIdOf } from '../crypto/aead';
import type { DataKeys } from '../crypto/data-keys';
import { type SealedFor, openPayload, sealPayload, sealingOf } from './payload-format';

// Temporal holds only ciphertext (issue 33): every payload of ours (inputs, results, Update
// arguments and answers, failures' details, a run's summary) is sealed with AES-256-GCM before it
// leaves the process (format: payload-format.ts). A job's payloads, and those of the webhook lanes
// about it, are sealed with its workspace's data key; the rest (meter, billing periods,
// redeliveries) with the operator's current key. Each is bound to its workspace and to the run
// (workflow ID) the SDK encodes it for: relabelled, it does not open; moved unchanged into another
// job's run, that run refuses it. The binding is the workflow ID, not the run ID: a client
// starting a run does not know its run ID, and continue-as-new, reset and retry keep the ID.
// A payload encoded with no workflow ID in its context (a schedule's own memo, the codec
// endpoint's encode for the UI) is bound to no run: like those written before the run was bound,
// it opens in any run of its scope, and its decode names no run. Payloads without our encoding
// (runs started before the codec) pass through.

const SYSTEM = 'system';
const WORKSPACE_KEY = 'ws';
const JOB_ID = /job_[0-9a-z]{26}/;

/** A sealed payload the codec will not hand to the run decoding it. */
export class PayloadRefused extends Error {}

/**
 * The workspace of the job a workflow ID names (a job's run, or a webhook lane of it), cached;
 * `know` puts a job in the cache as its submit starts it, so sealing its start reads nothing.
 */
export function jobWorkspaces(db: Knex, max = 100_000) {
  const cache = new Map<string, string>();
  const know = (jobId: string, workspaceId: string): void => {
    if (cache.size >= max) cache.delete(cache.keys().next().value!);
    cache.set(jobId, workspaceId);
  };
  const of = async (workflowId: string): Promise<string | undefined> => {
    const jobId = JOB_ID.exec(workflowId)?.[0];
    if (!jobId) return undefined;
    const hit = cache.get(jobId);
    if (hit) return hit;
    const row = await db('jobs').where({ id: jobId }).first('workspace_id');
    if (!row) return undefined;
    know(jobId, row.workspace_id as string);
    return row.workspace_id as string;
  };
  /** A run's workspace, learnt from a payload authenticated as sealed for that run. */
  const learn = (workflowId: string, workspaceId: string): void => {
    const jobId = JOB_ID.exec(workflowId)?.[0];
    if (jobId && !cache.has(jobId)) know(jobId, workspaceId);
  };
  return { of, know, learn };
}

export interface Opened {
  payload: Payload;
  sealedFor: SealedFor;
}

export interface ComputeCodec extends PayloadCodec {
  /** The payload opened, with what that authenticated; undefined when it does not open (altered, relabelled, a key not listed). */
  tryOpen(p: Payload): Promise<Opened | undefined>;
  /** Seals `payloads` for `workspaceId`, bound to no run (the codec endpoint's encode: no run names it). */
  encodeFor(workspaceId: string, payloads: Payload[]): Promise<Payload[]>;
}

export function createPayloadCodec(o: {
  dataKeys: DataKeys;
  operatorKeys: Buffer[];
  workspaceOf: (workflowId: string) => Promise<string | undefined>;
  /** Told a run's workspace when a payload authenticated as sealed for that run opens. */
  learn?: (workflowId: string, workspaceId: string) => void;
}): ComputeCodec {
  const operators = new Map(o.operatorKeys.map((k) => [keyIdOf(k), k] as const));
  const currentOperator = keyIdOf(o.operatorKeys[0]);

  const keyFor = async (scope: string, keyId: string | undefined) =>
    scope === SYSTEM
      ? keyId
        ? operators.get(keyId)
        : undefined
      : keyId === WORKSPACE_KEY
        ? o.dataKeys.of(scope)
        : undefined;

  async function tryOpen(p: Payload): Promise<Opened | undefined> {
    const sealing = sealingOf(p);
    if (!sealing) return undefined;
    const key = await keyFor(sealing.scope, sealing.keyId).catch(() => undefined);
    return key ? openPayload(key, p, sealing) : undefined;
  }

  async function sealAll(to: SealedFor, payloads: Payload[]): Promise<Payload[]> {
    const keyId = to.scope === SYSTEM ? currentOperator : WORKSPACE_KEY;
    const key = to.scope === SYSTEM ? operators.get(currentOperator)! : await o.dataKeys.of(to.scope);
    return payloads.map((p) => (sealingOf(p) ? p : sealPayload(key, keyId, p, to)));
  }

  return {
    tryOpen,

    async encode(payloads, context?: SerializationContext) {
      if (payloads.length === 0) return payloads;
      const workflowId = context?.workflowId || undefined;
      const scope = (workflowId && (await o.workspaceOf(workflowId))) || SYSTEM;
      return sealAll({ scope, workflowId }, payloads);
    },

    encodeFor: (workspaceId, payloads) => sealAll({ scope: workspaceId }, payloads),

    // A job's run (or a lane of it) takes payloads of its workspace bound to it or to no run.
    // Other runs check nothing more than that a payload opens: a scheduled run's ID is the
    // schedule's with the start time appended, and a replay may run a history under another ID.
    // A workspace's payload bound to this very run needs no look-up: its binding is authenticated,
    // and a payload is sealed for a run only with that run's workspace, which the codec then
    // knows for sealing the run's own payloads. Any other payload reads the run's workspace.
    async decode(payloads, context?: SerializationContext) {
      const run = context?.workflowId;
      let expected: Promise<string | undefined> | undefined;
      const workspaceOfRun = () => (expected ??= run ? o.workspaceOf(run) : Promise.resolve(undefined));
      return Promise.all(
        payloads.map(async (p) => {
          const sealing = sealingOf(p);
          if (!sealing) return p;
          const opened = await tryOpen(p);
          const boundTo = opened?.sealedFor.workflowId;
          if (opened && run && boundTo === run && sealing.scope !== SYSTEM) {
            o.learn?.(run, sealing.scope);
            return opened.payload;
          }
          const workspace = await workspaceOfRun();
          if (workspace && sealing.scope !== workspace)
            throw new PayloadRefused(`a payload sealed for ${sealing.scope} reached a run of ${workspace}`);
          if (!opened)
            throw new PayloadRefused(
              `a payload sealed for ${sealing.scope} does not open (altered, relabelled, or its key is not listed)`,
            );
          // Only a job's run (or lane) holds to its binding: see above for the others.
          if (workspace && boundTo && boundTo !== run)
            throw new PayloadRefused(`a payload sealed for run ${boundTo} reached run ${run}`);
          return opened.payload;
        }),
      );
    },
  };
}
