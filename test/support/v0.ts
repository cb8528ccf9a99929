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
