import { createApiKey } from '../../src/auth/api-keys';
import { setBilling } from '../../src/billing/subscription';
import { ensureOperatorWorkspace } from '../../src/workspaces/rows';
import { testEnv } from './env';
import { newWorkspace, ok, submit } from './http';

// The managed pool in tests: an operator's managed-pool key, its agents in a region of their own
// (so no other test's managed agent or job meets them), and managed jobs.

let counter = 0;
export const newRegion = () => `r-${Date.now().toString(36)}-${counter++}`;
const db = () => testEnv().db;

/** A managed-pool key, minted in the operator's workspace. */
export async function managedKey(name = 'pool'): Promise<string> {
  return (await createApiKey(db(), { workspaceId: await ensureOperatorWorkspace(db()), name, kind: 'managed' })).key;
}

/** A managed agent in `region`, registered with `key` (a fresh managed-pool key by default). */
export async function registerManaged(
  key: string | undefined,
  region: string,
  labels: Record<string, string> = {},
  name = 'managed',
) {
  const reg = await ok('/compute/nodes/register', { name, labels, region }, key ?? (await managedKey()));
  return { nodeId: reg.nodeId as string, nodeKey: reg.apiKey as string };
}

/** A fresh workspace on `payg` (a plan with the managed pool) whose default region is `region`. */
export async function workspaceIn(region: string) {
  const ws = await newWorkspace();
  await onManagedPlan(ws.workspaceId, region);
  return ws;
}

/** The workspace on `payg` (hobby has no managed pool), its default region `region` when given. */
export async function onManagedPlan(workspaceId: string, region?: string): Promise<void> {
  if (region !== undefined) await db()('workspaces').where({ id: workspaceId }).update({ default_region: region });
  await setBilling(db(), { workspaceId, plan: 'payg', creditUsd: '100', actor: { type: 'system', id: 'operator' } });
}

export const managedJob = (key: string, manifest: Record<string, unknown> = {}) =>
  submit(key, { pool: 'managed', ...manifest });

/** Submits `n` managed jobs, `parallel` at a time; their IDs in submit order. */
export async function submitMany(key: string, n: number, parallel = 16): Promise<string[]> {
  const ids: string[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) {
        const i = next++;
        ids[i] = (await managedJob(key, { command: `echo ${i}` })).job_id;
      }
    }),
  );
  return ids;
}
