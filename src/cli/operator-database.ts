import type { Knex } from 'knex';
import { loadDatabaseUrl } from '../config/server';
import { isDatabaseUnavailable } from '../shared/dependency-errors';
import { CliError } from './api-client';

/**
 * Runs an operator command's `fn` on the database (DATABASE_URL, else the `npm run dev` one), with
 * one plain message for an outage.
 */
export async function onDatabase<T>(fn: (db: Knex) => Promise<T>): Promise<T> {
  const url = loadDatabaseUrl();
  // Loaded here, not at start-up: the driver and logger would slow every other command's start.
  const { createDb } = require('../db/knex') as typeof import('../db/knex');
  const pino = require('pino') as typeof import('pino');
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
