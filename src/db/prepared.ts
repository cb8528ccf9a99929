import type { Knex } from 'knex';
import type pg from 'pg';
import type { Step } from './one-trip';
import { runPrepared } from './prepared-query';

/**
 * A statement for a hot path (every request, every transition): prepared once per connection by
 * name, so PostgreSQL parses and plans it once (a generic plan after its first few runs), and run
 * without knex's query builder, which costs more CPU than the statement's own round trip here.
 * On a transaction it runs on the transaction's connection. knex's `query` event is emitted as for
 * any other statement, so whatever watches the statements a process sends sees these.
 *
 * Its text must not change for its name, and its output must name its columns (no `*` at the top):
 * a migration that adds a column then leaves the prepared statements valid.
 */
export function prepared<Row = Record<string, unknown>>(name: string, text: string): Prepared<Row> {
  const run = async (db: Knex | Knex.Transaction, values: unknown[]): Promise<Row[]> =>
    onConnection(db, async (connection, told) => {
      told(text, values);
      return runPrepared<Row>(connection, name, text, values);
    });
  return Object.assign(run, { statementName: name, text });
}

/** A prepared statement: run it on a database or a transaction, or hand it to src/db/one-trip.ts. */
export interface Prepared<Row = Record<string, unknown>> {
  (db: Knex | Knex.Transaction, values: unknown[]): Promise<Row[]>;
  readonly statementName: string;
  readonly text: string;
}

/** The client knex runs statements on, as this module uses it. */
type KnexClient = {
  acquireConnection(): Promise<pg.Client & { __knexTxId?: string }>;
  releaseConnection(c: pg.Client): Promise<void>;
  emit(event: 'query', q: unknown): void;
};

/**
 * Runs `fn` on a connection of `db` (a transaction's own, on a transaction), released after it;
 * `told` emits knex's `query` event for each statement sent, as knex does for its own.
 */
export async function onConnection<T>(
  db: Knex | Knex.Transaction,
  fn: (connection: pg.Client, told: (sql: string, bindings: unknown[]) => void) => Promise<T>,
): Promise<T> {
  const client = db.client as KnexClient;
  const connection = await client.acquireConnection();
  try {
    return await fn(connection, (sql, bindings) =>
      client.emit('query', { sql, bindings, method: 'raw', __knexTxId: connection.__knexTxId }),
    );
  } finally {
    await client.releaseConnection(connection);
  }
}

/** `?` placeholders as `$1, $2, …`, for statements written in knex's style (no `?` operator in them). */
export function positional(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/**
 * `prepared` for a statement with `:name` placeholders (knex's named style; `::type` casts are
 * left alone), numbered in their order of first use and run with the values by name.
 */
export function preparedNamed<Row = Record<string, unknown>>(name: string, text: string) {
  const order: string[] = [];
  const numbered = text.replace(/(?<![:\w]):([a-z]+)\b/g, (_, key: string) => {
    if (!order.includes(key)) order.push(key);
    return `$${order.indexOf(key) + 1}`;
  });
  const run = prepared<Row>(name, numbered);
  const positionalOf = (values: Record<string, unknown>) => order.map((key) => values[key]);
  return Object.assign(
    (db: Knex | Knex.Transaction, values: Record<string, unknown>): Promise<Row[]> => run(db, positionalOf(values)),
    /** The statement with its values, as a step of a trip (src/db/one-trip.ts). */
    { step: (values: Record<string, unknown>): Step => ({ statement: run as Prepared, values: positionalOf(values) }) },
  );
}
