import { type FieldProblem, reach, refusal } from './api-client';

/** Who calls /v0: a session's Bearer token, acting in `activeWorkspace` when one is chosen (else its own). */
export interface V0Session {
  apiUrl: string;
  token: string;
  activeWorkspace?: string;
}

/** RFC 9457 problem details, as /v0 answers every error (CONTRACT §5). */
interface Problem {
  title?: string;
  detail?: string;
  code?: string;
  errors?: FieldProblem[];
}

/** One /v0 call; the answer's JSON (undefined for 204), or a problem as a one-line CliError with its code. */
export async function callV0<T>(session: V0Session, method: string, path: string, body?: unknown): Promise<T> {
  const res = await reach(session.apiUrl, `/v0${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${session.token}`,
      ...(session.activeWorkspace && { 'X-Compute-Workspace': session.activeWorkspace }),
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.ok) return (res.status === 204 ? undefined : await res.json()) as T;
  const problem = (await res.json().catch(() => null)) as Problem | null;
  const err = refusal(
    res.status,
    { message: problem?.detail ?? problem?.title, code: problem?.code, details: { fields: problem?.errors } },
    res.headers.get('retry-after'),
  );
  // A session revoked early, or a workspace chosen earlier that has since gone from under the
  // caller: say what to do about it.
  if (res.status === 401) err.message += '; run `compute login` again';
  if (res.status === 404 && session.activeWorkspace)
    err.message += ` (acting in ${session.activeWorkspace}; \`compute workspaces use --clear\` goes back to your own)`;
  throw err;
}

/** Every item of a /v0 list, page after page until `nextPageToken` runs out. */
export async function listAllV0<T>(session: V0Session, path: string): Promise<T[]> {
  const items: T[] = [];
  let pageToken: string | null = null;
  do {
    const query = new URLSearchParams({ pageSize: '200', ...(pageToken && { pageToken }) });
    const page: { items: T[]; nextPageToken: string | null } = await callV0(session, 'GET', `${path}?${query}`);
    items.push(...page.items);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return items;
}
