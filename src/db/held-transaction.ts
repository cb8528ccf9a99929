import type { Knex } from 'knex';
import type pg from 'pg';
import { type Rows, type Step, type TripStep, parsedOn, tripOn } from './one-trip';
import { onConnection } from './prepared';
import { runPrepared } from './prepared-query';
import type { TripRiders } from './trip-riders';

const BEGIN: TripStep = { statement: { statementName: '', text: 'BEGIN' }, values: [] };
/**
 * Past this, PostgreSQL ends a held transaction's session itself: a process that hangs (rather
 * than crashes, which ends the session at once) holds its rows' locks no longer. Longer than any
 * call a transaction is held across (a Temporal call's budget is 10 s).
 */
const IDLE_LIMIT_MS = 60_000;
const idleLimit = (ms: number): TripStep => ({
  statement: { statementName: '', text: `SET LOCAL idle_in_transaction_session_timeout = ${Math.round(ms)}` },
  values: [],
});
const COMMIT: TripStep = { statement: { statementName: '', text: 'COMMIT' }, values: [] };

/** A transaction held open by `holding`: it ends with `commit`, or is rolled back. */
export interface Held {
  /**
   * Runs `steps`, then COMMIT, in one round trip (with whatever waits in `riders` aboard), and
   * answers their rows. The transaction is over after it, committed or not; an error that came
   * with no answer (a lost connection) leaves unknown whether it committed.
   */
  commit(steps: Step[], riders?: TripRiders): Promise<Rows[]>;
}

/**
 * A transaction opened with its first statement (BEGIN and it in one round trip) and held open
 * while `fn` makes a call elsewhere (a job's run started in Temporal), so that what the call's
 * outcome decides commits with that statement: one transaction and one wait for the disk where
 * two would be. Rolled back when `fn` ends without committing, or throws. The connection is held
 * all the while, so callers bound how many hold one at once (`heldBudget`), and PostgreSQL ends
 * the session of one left idle past `idleLimitMs`. No riders board the opening trip: their locks
 * would be held across the call.
 */
export function holding<T>(
  db: Knex,
  open: Step,
  fn: (rows: Rows, held: Held) => Promise<T>,
  o: { idleLimitMs?: number } = {},
): Promise<T> {
  const limit = idleLimit(o.idleLimitMs ?? IDLE_LIMIT_MS);
  return onConnection(db, async (connection, told) => {
    let ended = false;
    const rollback = async () => {
      ended = true;
      // A connection whose transaction may still be open never goes back to the pool.
      await connection.query('ROLLBACK').catch((err: Error) => {
        (connection as pg.Client & { __knex__disposed?: unknown }).__knex__disposed = err;
      });
    };
    const held: Held = {
      async commit(steps, riders) {
        if (ended) throw new Error('the held transaction is over');
        for (const { statement, values } of steps) told(statement.text, values);
        try {
          if (!parsedOn(connection, steps)) {
            const results: Rows[] = [];
            for (const { statement, values } of steps)
              results.push(await runPrepared(connection, statement.statementName, statement.text, values));
            await connection.query('COMMIT');
            ended = true;
            return results;
          }
          const aboard = riders?.board() ?? [];
          for (const { step } of aboard) told(step.statement.text, step.values);
          try {
            const results = await tripOn(connection, [...steps, ...aboard.map((b) => b.step), COMMIT]);
            ended = true;
            aboard.forEach((b, i) => b.took(results[steps.length + i]));
            return results.slice(0, steps.length);
          } catch (err) {
            for (const b of aboard) b.missed();
            throw err;
          }
        } catch (err) {
          // A statement refused: the transaction is aborted until rolled back (a no-op if COMMIT ran).
          if (!ended) await rollback();
          throw err;
        }
      },
    };
    try {
      told(open.statement.text, open.values);
      let rows: Rows;
      if (parsedOn(connection, [open])) rows = (await tripOn(connection, [BEGIN, limit, open]))[2];
      else {
        await connection.query('BEGIN');
        await connection.query(limit.statement.text);
        rows = await runPrepared(connection, open.statement.statementName, open.statement.text, open.values);
      }
      return await fn(rows, held);
    } finally {
      if (!ended) await rollback();
    }
  });
}

/**
 * How many transactions a process holds open across calls elsewhere at once: half its pool, so a
 * Temporal (or a worker) that hangs holds at most half the connections, and the rest serve every
 * other request. `take` answers the release of one, or undefined when none is free: the caller
 * then goes the way that holds none.
 */
export function heldBudget(poolMax: number) {
  const max = Math.floor(poolMax / 2);
  let held = 0;
  return {
    take(): (() => void) | undefined {
      if (held >= max) return undefined;
      held++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held--;
      };
    },
  };
}

export type HeldBudget = ReturnType<typeof heldBudget>;
