import knex, { type Knex } from 'knex';
import pg from 'pg';

// Return BIGINT (int8) columns as numbers: our counters (seq, bytes, ms) stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export function createDb(url: string, opts: { max?: number } = {}): Knex {
  return knex({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: opts.max ?? 10 },
    acquireConnectionTimeout: 5_000,
  });
}
