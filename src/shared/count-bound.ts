import type { Knex } from 'knex';
import { AppError } from './errors';

/**
 * Refuses with 409 `resource.conflict` (`details.limit`) when `counted` already holds `limit`
 * rows. The caller first locks the row that owns them (the workspace, the user) in the same
 * transaction, so concurrent creations queue on it and the bound holds under any concurrency.
 */
export async function refuseAtBound(counted: Knex.QueryBuilder, limit: number, what: string): Promise<void> {
  const row = (await counted.count('* as n').first()) as { n: string | number } | undefined;
  if (Number(row?.n ?? 0) >= limit)
    throw new AppError('resource.conflict', `${what}: at most ${limit}; remove one first`, { limit });
}

/** Locks the owning row for the rest of the transaction (FK inserts elsewhere are not blocked). */
export async function lockOwner(trx: Knex.Transaction, table: 'workspaces' | 'users', id: string): Promise<void> {
  await trx(table).where({ id }).forNoKeyUpdate().first('id');
}
