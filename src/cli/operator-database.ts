import type { Knex } from 'knex';
import pino from 'pino';
import { loadDatabaseUrl } from '../config';
import { createDb } from '../db/knex';
import { isDatabaseUnavailable } from '../shared/dependency-errors';
import { CliError } from './api-client';

/**
 * Runs an operator command's `fn` on the database (DATABASE_URL, else the `npm run dev` one), with
 * one plain message for an outage.
 */
export async function onDatabase<T>(fn: (db: Knex) => Promise<T>): Promise<T> {
  const url = loadDatabaseUrl();
  // Silent: stdout carries the answer alone, and an outage gets one plain message below.
  const db = createDb(url, { max: 1, log: pino({ level: 'silent' }) });
  try {
    return await fn(db);
  } catch (err) {
    if (isDatabaseUnavailable(err))
      throw new CliError(
        `cannot reach the database at ${url.replace(/:[^:@/]*@/, ':***@')}: is \`npm run dev\` running?`,
      );
    throw err;
  } finally {
    await db.destroy();
  }
}
