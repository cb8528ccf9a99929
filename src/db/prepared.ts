import type { Knex } from 'knex';
import type pg from 'pg';

/**
 * A statement for a hot path (every request, every heartbeat): prepared once per connection by
 * name, so PostgreSQL parses and plans it once, and run on knex's pool without its query builder,
 * which costs more CPU than the statement's own round trip here. knex's `query` event is emitted
 * as for any other statement, so whatever watches the statements a process sends sees these.
 */
export function prepared<Row = Record<string, unknown>>(db: Knex, name: string, text: string) {
  return async (values: unknown[]): Promise<Row[]> => {
    const client = db.client as {
      acquireConnection(): Promise<pg.Client>;
      releaseConnection(c: pg.Client): Promise<void>;
    };
    const connection = await client.acquireConnection();
    try {
      db.emit('query', { sql: text, bindings: values, method: 'raw' });
      const result = await connection.query<Row & pg.QueryResultRow>({ name, text, values });
      return result.rows;
    } finally {
      await client.releaseConnection(connection);
    }
  };
}
