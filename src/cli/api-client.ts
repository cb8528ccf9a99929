/** A failure the CLI prints as one line, without a stack. */
export class CliError extends Error {}

export interface Envelope {
  status: 'OK' | 'ERROR';
  payload?: unknown;
  code?: string;
  message?: string;
  details?: { fields?: FieldProblem[] };
}

export interface FieldProblem {
  path: string;
  message: string;
}

/** Where the CLI sends requests, and as whom: an API key, a session token, or nobody (login). */
export interface Target {
  apiUrl: string;
  apiKey?: string;
  token?: string;
  /** With a session: the workspace `compute workspaces use` chose (else the personal one). */
  workspace?: string;
}

export const authHeaders = (t: Target): Record<string, string> =>
  t.apiKey
    ? { 'X-API-Key': t.apiKey }
    : t.token
      ? { Authorization: `Bearer ${t.token}`, ...(t.workspace && { 'X-Compute-Workspace': t.workspace }) }
      : {};

/** POSTs to Surface A and returns the payload; an error envelope or an unreachable API becomes a CliError. */
export async function callApi<T>(target: Target, path: string, body: unknown): Promise<T> {
  const res = await reach(target.apiUrl, `/api${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...authHeaders(target) },
    body: JSON.stringify(body),
  });
  const reply = (await res.json().catch(() => null)) as Envelope | null;
  if (reply?.status === 'OK') return reply.payload as T;
  throw refusal(res.status, reply, res.headers.get('retry-after'));
}

/** A request to the API; an API that cannot be reached becomes a CliError. */
export async function reach(apiUrl: string, path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(new URL(path, apiUrl), init);
  } catch {
    throw new CliError(`cannot reach the API at ${apiUrl}: is it running? (set COMPUTE_API_URL or --api)`);
  }
}

/** An error answer as one line: the contract's message, each bad field, the code, and when to retry. */
export function refusal(
  status: number | undefined,
  reply: Pick<Envelope, 'message' | 'code' | 'details'> | null,
  retryAfter?: string | null,
): CliError {
  const bad = reply?.details?.fields ?? [];
  const fields = bad.length ? ` (${bad.map((f) => `${f.path}: ${f.message}`).join('; ')})` : '';
  const hint = retryAfter ? ` (retry in ${retryAfter} s)` : '';
  return new CliError(`${reply?.message ?? `HTTP ${status}`}${fields}${reply?.code ? ` [${reply.code}]` : ''}${hint}`);
}
