import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

// A typed client of the compute job service's /v0 API: every route, body and answer typed from
// the OpenAPI document (./schema, generated), plus what generators do badly: a submit that is safe
// to repeat, following a job's log as it is written, and waiting for a job to end.

export type { components, paths } from './schema';
export type Job = components['schemas']['Job'];
export type JobManifest = components['schemas']['JobManifest'];
/** What a submit answers: the job's ID, state and creation time. */
export type SubmittedJob = components['schemas']['SubmittedJob'];
export type JobState = Job['state'];

/** One line of a job's log, as the log stream sends it. */
export interface LogLine {
  seq: number;
  stream: 'stdout' | 'stderr';
  line: string;
  ts: string;
}

export interface ComputeClientOptions {
  /** Where the API is, e.g. `https://compute.example.com` (the /v0 prefix is in each path). */
  baseUrl: string;
  /** A session token or an access token (`cpat_…`): sent as `Authorization: Bearer`. */
  token: string;
  /** The workspace to act in (`X-Compute-Workspace`); the token's own when absent. */
  workspaceId?: string;
  fetch?: typeof globalThis.fetch;
}

/** An answer that is not 2xx, with the API's problem document. */
export class ComputeApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { code?: string; title?: string; detail?: string } | undefined,
  ) {
    super(`${status} ${problem?.code ?? ''}: ${problem?.detail ?? problem?.title ?? 'request failed'}`.trim());
  }
}

const TERMINAL: ReadonlySet<string> = new Set(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ComputeClient {
  /** The generated client: `api.GET('/v0/jobs/{id}', { params: { path: { id } } })` and every other route. */
  api: Client<paths>;
  /**
   * Submits a job. The Idempotency-Key (one is made when none is given) makes a repeat after a
   * lost answer return the same job instead of a second one.
   */
  submit(manifest: JobManifest, o?: { idempotencyKey?: string }): Promise<SubmittedJob>;
  getJob(id: string): Promise<Job>;
  /**
   * Follows a job's log as it is written (server-sent events), resuming after a cut from the last
   * line seen, so each line is given once; resolves with the job's end once the log is complete.
   */
  followLogs(id: string, onLine: (line: LogLine) => void, o?: { signal?: AbortSignal }): Promise<{ state: string }>;
  /** Polls the job with a growing backoff (250 ms doubling to 5 s) until it is terminal. */
  waitForTerminal(id: string, o?: { timeoutMs?: number; signal?: AbortSignal }): Promise<Job>;
}

export function createComputeClient(o: ComputeClientOptions): ComputeClient {
  const fetchImpl = o.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = { authorization: `Bearer ${o.token}` };
  if (o.workspaceId) headers['x-compute-workspace'] = o.workspaceId;
  const api = createClient<paths>({ baseUrl: o.baseUrl, fetch: fetchImpl });
  const auth: Middleware = {
    onRequest({ request }) {
      for (const [k, v] of Object.entries(headers)) request.headers.set(k, v);
      return request;
    },
  };
  api.use(auth);

  const ok = <T>(r: { data?: T; error?: unknown; response: Response }): T => {
    if (r.data === undefined) throw new ComputeApiError(r.response.status, r.error as ComputeApiError['problem']);
    return r.data;
  };

  const getJob = async (id: string) => ok(await api.GET('/v0/jobs/{id}', { params: { path: { id } } })) as Job;

  return {
    api,
    async submit(manifest, opts = {}) {
      const idempotencyKey = opts.idempotencyKey ?? crypto.randomUUID();
      for (let attempt = 0; ; attempt++) {
        try {
          return ok(
            await api.POST('/v0/jobs', { body: manifest, params: { header: { 'Idempotency-Key': idempotencyKey } } }),
          );
        } catch (err) {
          // Only a lost answer or an outage is repeated, with the same key: never a refusal.
          const retryable = !(err instanceof ComputeApiError) || err.status >= 500 || err.status === 409;
          if (!retryable || attempt >= 4) throw err;
          await sleep(250 * 2 ** attempt);
        }
      }
    },
    getJob,
    async followLogs(id, onLine, opts = {}) {
      let lastSeq: string | undefined;
      for (let failures = 0; ;) {
        const res = await fetchImpl(`${o.baseUrl}/v0/jobs/${encodeURIComponent(id)}/logs?follow=true`, {
          headers: { ...headers, accept: 'text/event-stream', ...(lastSeq && { 'last-event-id': lastSeq }) },
          signal: opts.signal,
        }).catch((err: unknown) => err as Error);
        if (res instanceof Response && !res.ok) {
          const problem = (await res.json().catch(() => undefined)) as ComputeApiError['problem'];
          if (res.status < 500) throw new ComputeApiError(res.status, problem);
        }
        if (res instanceof Response && res.ok && res.body) {
          failures = 0;
          let buffer = '';
          const decoder = new TextDecoder();
          const reader = res.body.getReader();
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              buffer += decoder.decode(value, { stream: true });
              for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
                const event = parseEvent(buffer.slice(0, end));
                buffer = buffer.slice(end + 2);
                if (event.id !== undefined) lastSeq = event.id;
                if (event.type === 'log') onLine(JSON.parse(event.data) as LogLine);
                if (event.type === 'end') return JSON.parse(event.data) as { state: string };
              }
            }
          } catch (err) {
            if (opts.signal?.aborted) throw err;
          }
        } else if (opts.signal?.aborted) throw opts.signal.reason;
        // A cut stream or an outage: resume after the last line seen.
        await sleep(Math.min(250 * 2 ** failures++, 5000));
      }
    },
    async waitForTerminal(id, opts = {}) {
      const deadline = Date.now() + (opts.timeoutMs ?? 3_600_000);
      for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
        const job = await getJob(id);
        if (TERMINAL.has(job.state)) return job;
        if (Date.now() + delay > deadline) throw new Error(`job ${id} is still ${job.state}`);
        if (opts.signal?.aborted) throw opts.signal.reason;
        await sleep(delay);
      }
    },
  };
}

function parseEvent(block: string): { type?: string; id?: string; data: string } {
  const event: { type?: string; id?: string; data: string } = { data: '' };
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue; // a keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event.type = value;
    else if (field === 'id') event.id = value;
    else if (field === 'data') event.data = event.data ? `${event.data}\n${value}` : value;
  }
  return event;
}
