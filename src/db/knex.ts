import knex, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';

// Return BIGINT (int8) columns as numbers: our counters (seq, bytes, ms) stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export function createDb(url: string, opts: { max?: number; log?: Logger } = {}): Knex {
  const log = opts.log;
  return knex({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: opts.max ?? 10 },
    acquireConnectionTimeout: 5_000,
    // knex prints pool trouble to the console; through our logger it is structured and quietable.
    ...(log && {
      log: {
        warn: (msg: unknown) => log.warn({ knex: String(msg) }, 'database warning'),
        error: (msg: unknown) => log.error({ knex: String(msg) }, 'database error'),
        deprecate: (msg: unknown) => log.warn({ knex: String(msg) }, 'knex deprecation'),
        debug: (msg: unknown) => log.debug({ knex: String(msg) }, 'knex'),
      },
    }),
  });
}
