import { useState } from 'preact/hooks';
import { type Problem, call, problemOf } from './api';
import { usePolling } from './poll';

export interface Paged<T> {
  items: T[];
  next: string | null;
}

export interface PagedList<T> {
  page?: Paged<T>;
  /** What reading the list met; gone once a read succeeds. */
  problem?: Problem;
  /** Read the page again (after a change). */
  reload: () => void;
  /** Back to the first page (after a creation, which lists first). */
  restart: () => void;
  atStart: boolean;
  more: () => void;
}

/**
 * One page of a list the API pages with a cursor: read when `deps` change and after `reload`, and
 * again every `everyMs` when given (lists that change by themselves). The cursors walked are kept,
 * so "First" goes back.
 */
export function usePaged<T>(
  load: (cursor: string | undefined, signal: AbortSignal) => Promise<Paged<T>>,
  deps: unknown[],
  everyMs = 0,
): PagedList<T> {
  const [cursors, setCursors] = useState<string[]>([]);
  const [page, setPage] = useState<Paged<T>>();
  const [problem, setProblem] = useState<Problem>();
  const [version, setVersion] = useState(0);
  const cursor = cursors[cursors.length - 1];
  usePolling(
    async (signal) => {
      try {
        setPage(await load(cursor, signal));
        setProblem(undefined);
      } catch (err) {
        if (!signal.aborted) setProblem(problemOf(err));
      }
    },
    everyMs,
    everyMs > 0,
    [cursor, version, ...deps],
  );
  return {
    page,
    problem,
    reload: () => setVersion((v) => v + 1),
    restart: () => {
      setCursors([]);
      setVersion((v) => v + 1);
    },
    atStart: cursors.length === 0,
    more: () => page?.next && setCursors([...cursors, page.next]),
  };
}

/** A /v0 list: `pageSize` and `pageToken` in, `{items, nextPageToken}` out. */
export async function v0Page<T>(
  path: string,
  pageSize: number,
  cursor: string | undefined,
  signal: AbortSignal,
  params: URLSearchParams | Record<string, string> = {},
): Promise<Paged<T>> {
  const q = new URLSearchParams(params);
  q.set('pageSize', String(pageSize));
  if (cursor) q.set('pageToken', cursor);
  const page = await call<{ items: T[]; nextPageToken: string | null }>('GET', `${path}?${q}`, { signal });
  return { items: page.items, next: page.nextPageToken };
}
