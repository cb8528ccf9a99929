import { testEnv } from './env';

export interface V0Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One /v0 call with a Bearer token (a session JWT or a cpat_ token). */
export async function v0(
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; baseUrl?: string } = {},
): Promise<V0Reply> {
  const res = await fetch(`${opts.baseUrl ?? testEnv().url}/v0${path}`, {
    method,
    headers: {
      ...(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}),
      ...opts.headers,
    },
    body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  return {
    status: res.status,
    headers: res.headers,
    body: text && /json/.test(type) && !/jsonl/.test(type) ? JSON.parse(text) : text,
  };
}

/** Asserts the status and returns the body. */
export async function v0ok(method: string, path: string, opts: Parameters<typeof v0>[2] & { status?: number } = {}) {
  const reply = await v0(method, path, opts);
  const want = opts.status ?? (method === 'POST' ? 201 : 200);
  if (reply.status !== want)
    throw new Error(`${method} /v0${path} -> ${reply.status} (wanted ${want}) ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/**
 * `n` concurrent calls of `GET /v0/tokens`, and what a fixed-window budget may let through of
 * them at most, read from the `RateLimit-Policy` their answers state ("5;w=1, 30;w=10"): a burst
 * spans one more window of each kind than it lasted whole windows. How fast this machine sends a
 * burst is not the test's to assume; this bound holds at any pace.
 */
export async function burstOfReads(n: number, opts: { token: string; baseUrls?: Array<string | undefined> }) {
  const started = Date.now();
  const replies = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      v0('GET', '/tokens', { token: opts.token, baseUrl: opts.baseUrls?.[i % opts.baseUrls.length] }),
    ),
  );
  const ms = Date.now() - started;
  const policy = replies.find((r) => r.headers.get('ratelimit-policy'))?.headers.get('ratelimit-policy');
  const windows = [...(policy ?? '').matchAll(/(\d+);w=(\d+)/g)];
  const allowedAtMost = Math.min(
    ...windows.map(([, limit, seconds]) => Number(limit) * (Math.ceil(ms / (Number(seconds) * 1000)) + 1)),
  );
  return {
    replies,
    ms,
    policy,
    passed: replies.filter((r) => r.status === 200).length,
    refused: replies.filter((r) => r.status === 429),
    allowedAtMost,
  };
}
