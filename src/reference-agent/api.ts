import { setTimeout as sleep } from 'node:timers/promises';

/** An answer the agent must act on rather than retry: 4xx other than 429. */
export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface RetryPolicy {
  /** Give up after this long; Infinity keeps trying (results, log batches). */
  budgetMs: number;
  signal?: AbortSignal;
  /** Sent with every try (a result's `traceparent`). */
  headers?: Record<string, string>;
}

const BASE_MS = 250;
const CAP_MS = 10_000;

/** Full jitter: a fleet coming back after an outage does not arrive in step. */
export const backoffMs = (attempt: number) => Math.random() * Math.min(CAP_MS, BASE_MS * 2 ** attempt);

/**
 * The agent's side of Surface A. Network errors, 5xx and 429 are retried with backoff (429 and
 * 503 honour Retry-After) until the budget runs out; refusals are thrown as ApiRefusal at once.
 */
export class AgentApi {
  constructor(
    private readonly baseUrl: string,
    public key: string,
    private readonly onRetry?: (path: string, why: string) => void,
  ) {}

  async call<T>(path: string, body: unknown, policy: RetryPolicy = { budgetMs: 60_000 }): Promise<T> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      let wait = backoffMs(attempt);
      let why: string;
      try {
        const res = await fetch(new URL(`/api${path}`, this.baseUrl), {
          method: 'POST',
          headers: { ...policy.headers, 'Content-Type': 'application/json', 'X-API-Key': this.key },
          body: JSON.stringify(body),
          signal: policy.signal,
        });
        const reply = (await res.json().catch(() => null)) as {
          status?: string;
          payload?: T;
          code?: string;
          message?: string;
        } | null;
        if (res.ok && reply?.status === 'OK') return reply.payload as T;
        const code = reply?.code ?? `http.${res.status}`;
        if (res.status < 500 && res.status !== 429)
          throw new ApiRefusal(res.status, code, reply?.message ?? `HTTP ${res.status}`);
        const retryAfter = Number(res.headers.get('retry-after'));
        if (retryAfter > 0) wait = retryAfter * 1000 * (0.8 + Math.random() * 0.4);
        why = `${res.status} ${code}`;
      } catch (err) {
        if (err instanceof ApiRefusal || policy.signal?.aborted) throw err;
        why = err instanceof Error ? err.message : String(err);
      }
      if (Date.now() - started + wait > policy.budgetMs)
        throw new Error(`${path}: gave up after ${attempt + 1} tries (${why})`);
      this.onRetry?.(path, why);
      await sleep(wait, undefined, { signal: policy.signal });
    }
  }
}
