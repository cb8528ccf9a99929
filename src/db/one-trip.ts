import type { Knex } from 'knex';
import pg from 'pg';
import { type Prepared, onConnection } from './prepared';
import {
  type RowShape,
  type Wire as StatementWire,
  describedShape,
  prepareValue,
  rememberShape,
  rowOf,
  runPrepared,
  shapeOf,
} from './prepared-query';
import type { TripRiders } from './trip-riders';

/** A prepared statement and its values, one part of a write that commits as a whole. */
export interface Step {
  statement: Prepared<Record<string, unknown>>;
  values: unknown[];
}

/**
 * A statement parsed in the trip that runs it (the unnamed statement): its names are resolved and
 * it is planned on every run, and it needs no connection to have met it before. Only riders
 * (src/db/trip-riders.ts) send one, and only aboard a trip.
 */
export interface Unprepared {
  readonly statementName: '';
  readonly text: string;
}

/** A rider's statement and its values. */
export interface RiderStep {
  statement: Unprepared;
  values: unknown[];
}

export type TripStep = Step | RiderStep;

export type Rows = Array<Record<string, unknown>>;

/** A read that rides a write's trip, in its transaction: no round trip or transaction of its own. */
export interface RideAlong {
  step: Step;
  /** Its rows, once the trip committed. */
  took(rows: Rows): void;
}

/** What this query sends on a connection: pg's Connection, as its Query uses it. */
interface Wire extends StatementWire {
  parse(o: { name: ''; text: string }): void;
  stream: { cork?(): void; uncork?(): void };
  describe(o: { type: 'P'; name: string }): void;
  execute(o: Record<string, never>): void;
}

/**
 * Statements that commit together, in one round trip: each one's Bind, Describe (unless the
 * connection described it before: src/db/prepared-query.ts) and Execute, then a single Sync.
 * PostgreSQL runs all that comes before a Sync as one implicit transaction, each statement with
 * a snapshot of its own (read committed), as between BEGIN and COMMIT: a statement sees what
 * the ones before it wrote, and what others committed before it began. An error skips the rest
 * and rolls all of them back. Against BEGIN, the statements and COMMIT one at a time, three round
 * trips fewer for two statements, and their locks held for one.
 *
 * Every statement must be parsed on the connection already (pg keeps which are): a Parse here
 * could not tell pg's bookkeeping which of them the server kept if one failed. The first time a
 * connection meets one of them, the statements go one at a time in a transaction instead.
 * Submitted to pg's Client as its own Query is (the Submittable protocol pg-cursor uses).
 */
export class OneTripQuery {
  readonly results: Rows[];
  private at = 0;
  /** Each step's shape: known when sent, or as PostgreSQL describes it. */
  private readonly shapes: Array<RowShape | undefined>;
  private wire?: Wire;
  private failed?: Error;
  private answered = false;

  constructor(
    readonly steps: TripStep[],
    private readonly done: (err: Error | undefined) => void,
  ) {
    this.results = steps.map(() => []);
    this.shapes = steps.map(() => undefined);
  }

  submit(connection: Wire): Error | null {
    // Every value mapped before anything is sent: a Sync after some of the statements would
    // commit them without the rest.
    let values: unknown[][];
    try {
      values = this.steps.map((step) => step.values.map((v) => prepareValue(v)));
    } catch (err) {
      return err as Error;
    }
    this.wire = connection;
    connection.stream.cork?.();
    try {
      this.steps.forEach(({ statement }, i) => {
        const name = statement.statementName;
        if (name === '') connection.parse({ name: '', text: statement.text });
        connection.bind({ statement: name, values: values[i] });
        this.shapes[i] = name === '' ? undefined : describedShape(connection, name);
        if (!this.shapes[i]) connection.describe({ type: 'P', name: '' });
        connection.execute({});
      });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: { fields: pg.FieldDef[] }): void {
    const { statementName, text } = this.steps[this.at].statement;
    const shape = shapeOf(statementName || text, msg.fields);
    this.shapes[this.at] = shape;
    if (statementName !== '' && this.wire) rememberShape(this.wire, statementName, shape);
  }

  handleDataRow(msg: { fields: Array<string | null> }): void {
    const shape = this.shapes[this.at];
    if (this.failed || !shape) return;
    try {
      this.results[this.at].push(rowOf(shape, msg.fields));
    } catch (err) {
      // As pg does: the statements still run to their end, and the caller gets the parse error.
      this.failed = err as Error;
    }
  }

  handleCommandComplete(): void {
    this.at++;
  }

  handleEmptyQuery(): void {
    this.handleCommandComplete();
  }

  handleError(err: Error): void {
    this.answer(err);
  }

  handleReadyForQuery(): void {
    this.answer(this.failed);
  }

  private answer(err: Error | undefined): void {
    if (this.answered) return;
    this.answered = true;
    this.done(err);
  }
}

/**
 * Runs `steps` as one transaction and answers each one's rows. On a transaction, they run on it
 * one after another (it commits them); else in one round trip (OneTripQuery), with whatever waits
 * in `riders` aboard after them (a rider's rows go to it, not to the caller).
 */
export function inOneTrip(db: Knex | Knex.Transaction, steps: Step[], riders?: TripRiders): Promise<Rows[]> {
  if (db.isTransaction || steps.length === 1) return inOrder(db, steps);
  return onConnection(db, async (connection, told) => {
    for (const { statement, values } of steps) told(statement.text, values);
    if (!parsedOn(connection, steps)) return oneAtATime(connection, steps);
    const aboard = riders?.board() ?? [];
    for (const { step } of aboard) told(step.statement.text, step.values);
    const all: TripStep[] = [...steps, ...aboard.map((b) => b.step)];
    try {
      const results = await tripOn(connection, all);
      aboard.forEach((b, i) => b.took(results[steps.length + i]));
      return results.slice(0, steps.length);
    } catch (err) {
      for (const b of aboard) b.missed();
      throw err;
    }
  });
}

/** Sends `steps` in one round trip on `connection`, each parsed there already (or unprepared); their rows. */
export function tripOn(connection: pg.Client, steps: TripStep[]): Promise<Rows[]> {
  return new Promise<Rows[]>((resolve, reject) => {
    const query: OneTripQuery = new OneTripQuery(steps, (err) => (err ? reject(err) : resolve(query.results)));
    void connection.query(query as unknown as pg.Submittable);
  });
}

/** Whether every one of `steps` is parsed on `connection` (pg keeps which are). */
export function parsedOn(connection: pg.Client, steps: Step[]): boolean {
  const parsed = (connection as unknown as { connection: Wire }).connection.parsedStatements;
  return steps.every(({ statement }) => parsed[statement.statementName] !== undefined);
}

/** On a transaction, which commits them; or a single statement, a transaction of its own. */
async function inOrder(db: Knex | Knex.Transaction, steps: Step[]): Promise<Rows[]> {
  const results: Rows[] = [];
  for (const { statement, values } of steps) results.push(await statement(db, values));
  return results;
}

/** A connection's first meeting with the statements: each parsed through pg's Query, in a transaction. */
async function oneAtATime(connection: pg.Client, steps: Step[]): Promise<Rows[]> {
  await connection.query('BEGIN');
  try {
    const results: Rows[] = [];
    for (const { statement, values } of steps)
      results.push(await runPrepared(connection, statement.statementName, statement.text, values));
    await connection.query('COMMIT');
    return results;
  } catch (err) {
    await connection.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
