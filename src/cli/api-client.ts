/** A failure the CLI prints as one line, without a stack. */
export class CliError extends Error {}

interface Envelope {
  status: 'OK' | 'ERROR';
  payload?: unknown;
  code?: string;
  message?: string;
}

/** POSTs to Surface A and returns the payload; an error envelope or an unreachable API becomes a CliError. */
export async function callApi<T>(apiUrl: string, path: string, body: unknown, token?: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(new URL(`/api${path}`, apiUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  } catch {
    throw new CliError(`cannot reach the API at ${apiUrl}: is it running? (set COMPUTE_API_URL or --api)`);
  }
  const reply = (await res.json().catch(() => null)) as Envelope | null;
  if (reply?.status === 'OK') return reply.payload as T;
  const retry = res.headers.get('retry-after');
  const hint = retry ? ` (retry in ${retry} s)` : '';
  throw new CliError(`${reply?.message ?? `HTTP ${res.status}`}${reply?.code ? ` [${reply.code}]` : ''}${hint}`);
}
