import { request as httpRequest } from 'node:http';
import { createApiKey } from '../../src/auth/api-keys';
import { createWorkspace } from '../../src/workspaces/rows';
import { testEnv } from './env';

export interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** An API key goes in X-API-Key; a JWT (from login) as a Bearer token. */
export const credentialHeaders = (credential?: string): Record<string, string> =>
  !credential
    ? {}
    : credential.startsWith('eyJ')
      ? { Authorization: `Bearer ${credential}` }
      : { 'X-API-Key': credential };

export async function post(path: string, body: unknown, key?: string, baseUrl = testEnv().url): Promise<Reply> {
  const res = await fetch(`${baseUrl}/api${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...credentialHeaders(key) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** Asserts success and returns the payload. */
export async function ok(path: string, body: unknown, key: string, baseUrl?: string) {
  const reply = await post(path, body, key, baseUrl);
  if (reply.status !== 200) throw new Error(`${path} -> ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.payload;
}

/** A fresh workspace with a user key: each test's data is its own. */
export async function newWorkspace(name = 'test') {
  const db = testEnv().db;
  const workspaceId = await createWorkspace(db, name);
  const { key } = await createApiKey(db, { workspaceId, name: 'test', kind: 'user' });
  return { workspaceId, key };
}

export async function registerNode(key: string, labels: Record<string, string> = {}, name = 'node') {
  const reg = await ok('/compute/nodes/register', { name, labels }, key);
  return { nodeId: reg.nodeId as string, nodeKey: reg.apiKey as string };
}

export const submit = (key: string, manifest: Record<string, unknown> = {}) =>
  ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo hi', ...manifest }, key);

export const retrieve = (key: string, jobId: string) => ok('/compute/jobs/retrieve', { job_id: jobId }, key);

export async function pollOne(node: { nodeId: string; nodeKey: string }, waitSeconds = 5) {
  const out = await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds }, node.nodeKey);
  return out.jobs[0] as { job_id: string; leaseId: string; attempt: number; env: Record<string, string> } | undefined;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls a job until `predicate` holds (state changes land through the workflow's projection). */
export async function waitForJob(
  key: string,
  jobId: string,
  predicate: (job: { state: string }) => boolean,
  timeoutMs = 15_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await retrieve(key, jobId);
    if (predicate(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} stuck in ${job.state}`);
    await sleep(50);
  }
}

export const inState =
  (...states: string[]) =>
  (job: { state: string }) =>
    states.includes(job.state);

type NodeRef = { nodeId: string; nodeKey: string };
type Held = { job_id: string; leaseId: string };

/** A fresh workspace with one node already holding one submitted job. */
export async function heldJob(manifest: Record<string, unknown> = {}) {
  const ws = await newWorkspace();
  const node = await registerNode(ws.key);
  const sub = await submit(ws.key, manifest);
  const job = (await pollOne(node))!;
  // The assignment's write commits just behind the poll's answer: reads that do not wait on the
  // job's row (the node's running jobs) see it once this holds.
  await waitForJob(ws.key, sub.job_id, (j) => j.state === 'running', 10_000);
  return { ...ws, node, sub, job };
}

/** The body of a node's result report for the attempt it holds. */
export const resultOf = (node: NodeRef, job: Held, exitCode: number, runtimeMs = 1) => ({
  nodeId: node.nodeId,
  job_id: job.job_id,
  leaseId: job.leaseId,
  exitCode,
  runtimeMs,
});

/**
 * A POST from a given loopback source address (127.0.0.2, 127.0.0.3…): Linux routes all of
 * 127/8 to this machine, so tests can be several clients by address.
 */
export function postFrom(
  localAddress: string,
  path: string,
  body: unknown,
  key?: string,
  baseUrl = testEnv().url,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(`/api${path}`, baseUrl),
      {
        method: 'POST',
        localAddress,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(data),
          ...credentialHeaders(key),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** The text of a job's stored log lines, in order. */
export const storedLines = async (jobId: string): Promise<string[]> =>
  (await testEnv().db('job_logs').where({ job_id: jobId, kind: 'line' }).orderBy('seq')).map((r) => r.line as string);

/**
 * Heartbeats for `node` naming `jobIds` every 300 ms, as a live agent does, until `stop()`,
 * which resolves to every `cancel` list the API answered.
 */
export function heartbeatInBackground(node: { nodeId: string; nodeKey: string }, jobIds: string[], baseUrl?: string) {
  const cancels: string[][] = [];
  let beating = true;
  const loop = (async () => {
    while (beating) {
      cancels.push(
        (await ok('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: jobIds }, node.nodeKey, baseUrl))
          .cancel,
      );
      await sleep(300);
    }
  })();
  return {
    async stop(): Promise<string[][]> {
      beating = false;
      await loop;
      return cancels;
    },
  };
}
