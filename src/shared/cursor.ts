import { AppError } from './errors';
import type { IdPrefix, LEGACY_WEBHOOK_PREFIX } from './ids';

// Lists page by ID: IDs are time-sortable, so the cursor is the last ID returned, kept opaque.
// One decoder for every list, so a cursor that is not ours is 400 everywhere, never a query.

export const encodeCursor = (id: string): string => Buffer.from(id).toString('base64url');

export function decodeCursor(
  cursor: string,
  prefix: IdPrefix | ReadonlyArray<IdPrefix | typeof LEGACY_WEBHOOK_PREFIX>,
  field = 'cursor',
): string {
  const id = Buffer.from(cursor, 'base64url').toString();
  const prefixes = typeof prefix === 'string' ? [prefix] : prefix;
  if (!new RegExp(`^(${prefixes.join('|')})_[0-9a-z]{26}$`).test(id)) {
    throw new AppError('request.invalid', `Invalid ${field}`, {
      fields: [{ path: field, message: 'not a page token from this API' }],
    });
  }
  return id;
}

/** The page of `rows` (fetched with limit + 1) and the cursor of the next one, after the last item's ID. */
export function pageOf<R, T>(
  rows: R[],
  limit: number,
  map: (row: R) => T,
  idOf: (item: T) => string = (item) => (item as { id: string }).id,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit).map(map);
  return { items, nextCursor: rows.length > limit ? encodeCursor(idOf(items[items.length - 1])) : null };
}

/** A page request of either surface: `limit` items after the one `cursor` names. */
export interface PageRequest {
  limit: number;
  cursor?: string;
  /** What the caller's surface calls the cursor (`cursor` on /api, `pageToken` on /v0), for the 400 that names it. */
  cursorParam?: string;
}
