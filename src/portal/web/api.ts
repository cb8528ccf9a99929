import { ERROR_CODES, type ErrorCode } from '../../shared/errors';
import { navigate, placeHref } from './router';

// The portal's one way to the API: same origin, the session in its HttpOnly cookie (never seen
// here), the CSRF header on every change, the workspace chosen in the page's address as
// X-Compute-Workspace. Both surfaces' errors become one Problem; a refused session goes back to
// the login page, which returns to the page asked for.

export interface Problem {
  status: number;
  title: string;
  detail: string;
  code?: string;
  /** Each bad field of the request, as the API named it. */
  fields?: Array<{ path: string; message: string }>;
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.title}: ${problem.detail}`);
  }
}

/** A failure as a Problem: the API's own, or the network's. */
export const problemOf = (err: unknown): Problem =>
  err instanceof ApiError
    ? err.problem
    : { status: 0, title: 'The service cannot be reached', detail: 'Check the connection and try again.' };

const titleOf = (code: string | undefined) =>
  code && Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as ErrorCode].title : 'The request failed';

/** The workspace the page acts in (`?workspace=`), or none: the session's own. */
export const currentWorkspace = (): string | undefined =>
  new URLSearchParams(location.search).get('workspace') ?? undefined;

/** The login page, coming back to where the person is now (calls refused together go there once). */
export function toLogin(): void {
  if (location.pathname !== '/login') navigate(`/login?next=${encodeURIComponent(placeHref())}`, true);
}

export interface CallOptions {
  body?: unknown;
  /** Headers of the call's own (Last-Event-ID). */
  headers?: Record<string, string>;
  /** Login calls: a 401 is the answer to show, not an expired session. */
  anonymous?: boolean;
  /** False for calls about the person, not a workspace (who they are, their workspaces): no workspace header. */
  inWorkspace?: boolean;
  signal?: AbortSignal;
}

/** The request headers every call carries. */
export function headersFor(method: string, o: CallOptions = {}): Record<string, string> {
  const workspace = o.inWorkspace === false ? undefined : currentWorkspace();
  return {
    Accept: 'application/json',
    ...(o.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    ...(method === 'GET' || method === 'HEAD' ? {} : { 'X-Compute-CSRF': '1' }),
    ...(workspace ? { 'X-Compute-Workspace': workspace } : {}),
    ...o.headers,
  };
}

/** Reads a refusal of either surface: a /v0 problem or an /api envelope. */
export async function problemFrom(res: Response): Promise<Problem> {
  const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  const code = typeof body?.code === 'string' ? body.code : undefined;
  const title = typeof body?.title === 'string' ? body.title : titleOf(code);
  const detail =
    typeof body?.detail === 'string'
      ? body.detail
      : typeof body?.message === 'string'
        ? body.message
        : `HTTP ${res.status}`;
  // /v0 names bad fields in `errors`, /api in `details.fields`.
  const fields = (body?.errors ?? (body?.details as { fields?: unknown } | undefined)?.fields) as Problem['fields'];
  return { status: res.status, title, detail, code, ...(Array.isArray(fields) && fields.length ? { fields } : {}) };
}

/** A 401 on a call that needed the session: it expired or was signed out elsewhere. */
export function sessionEnded(res: Response, o: CallOptions): boolean {
  if (res.status !== 401 || o.anonymous) return false;
  toLogin();
  return true;
}

/** One call; resolves with /v0's body or /api's payload, rejects with an ApiError. */
export async function call<T>(method: string, path: string, o: CallOptions = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: headersFor(method, o),
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      credentials: 'same-origin',
      signal: o.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(problemOf(err));
  }
  if (!res.ok) {
    const problem = await problemFrom(res);
    sessionEnded(res, o);
    throw new ApiError(problem);
  }
  if (res.status === 204) return undefined as T;
  const body = (await res.json()) as { status?: string; payload?: T };
  return path.startsWith('/api/') && body.status === 'OK' ? (body.payload as T) : (body as T);
}
