import pg from 'pg';

type Parser = (text: string) => unknown;

/** A statement's rows as PostgreSQL describes them: column names, types and the parser of each. */
export interface RowShape {
  names: string[];
  types: number[];
  parsers: Parser[];
}

/** By statement name: a prepared statement's columns do not change, so its shape is read once. */
const shapes = new Map<string, RowShape>();

export function shapeOf(name: string, fields: pg.FieldDef[]): RowShape {
  const known = shapes.get(name);
  if (known && known.names.length === fields.length && fields.every((f, i) => same(known, f, i))) return known;
  const shape = {
    names: fields.map((f) => f.name),
    types: fields.map((f) => f.dataTypeID),
    parsers: fields.map((f) => pg.types.getTypeParser(f.dataTypeID, 'text') as Parser),
  };
  shapes.set(name, shape);
  return shape;
}

const same = (shape: RowShape, f: pg.FieldDef, i: number) =>
  shape.names[i] === f.name && shape.types[i] === f.dataTypeID;

/**
 * The shapes PostgreSQL described on each connection (pg's Connection), by statement name. A
 * statement parsed on a connection keeps its row type there: PostgreSQL refuses to run it with
 * another ("cached plan must not change result type"), so its later runs on that connection skip
 * the Describe, and its RowDescription is neither sent nor parsed again.
 */
const described = new WeakMap<object, Map<string, RowShape>>();

/** The shape of `name` as described on `wire`, when it was and the statement is parsed there. */
export function describedShape(wire: Wire, name: string): RowShape | undefined {
  if (wire.parsedStatements[name] === undefined) return undefined;
  return described.get(wire)?.get(name);
}

/** Remembers `shape` as `name`'s on `wire`. */
export function rememberShape(wire: Wire, name: string, shape: RowShape): void {
  let shapes = described.get(wire);
  if (!shapes) described.set(wire, (shapes = new Map()));
  shapes.set(name, shape);
}

/** The part of pg's Connection a statement is sent on. */
export interface Wire {
  parsedStatements: Record<string, string>;
  bind(o: Record<string, unknown>): void;
  close(o: { type: 'S'; name: string }): void;
  sync(): void;
}

/** pg's own mapping of values to the wire (Dates, arrays, objects as JSON), as its Query binds them. */
export const prepareValue = (pg as unknown as { utils: { prepareValue(v: unknown): unknown } }).utils.prepareValue;

/** A data row as a plain object, its columns in order, each parsed by its type's parser (which may throw). */
export function rowOf({ names, parsers }: RowShape, raw: Array<string | null>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i];
    row[names[i]] = v === null ? null : parsers[i](v);
  }
  return row;
}

/** The parts of pg's Query this one calls on: the Submittable protocol's handlers, untyped in @types/pg. */
interface QueryHandlers {
  handleReadyForQuery(connection: unknown): void;
  handleError(err: Error, connection: unknown): void;
  prepare(connection: Wire): void;
  _getRows(connection: Wire, rows: number | undefined): void;
}
const pgQuery = pg.Query.prototype as unknown as QueryHandlers;

/**
 * A named prepared statement run as pg's own Query, minus what pg repeats on every run of every
 * statement: it copies the query's config by reflection, and for each answer it builds a
 * dictionary-mode template row and looks up each column's parser again (about 10 µs for a job's
 * row, measured against pg 8.23). Here the text is handed over as a string (nothing to copy), and
 * the row's shape is read once per statement. Rows are plain objects built in column order,
 * parsed with the same global type parsers (`src/db/knex.ts` sets ours); the clients run with no
 * type overrides of their own. Once a connection has described a statement, its runs there send
 * no Describe (`describedShape`). Errors, the protocol and the connection's bookkeeping of which
 * statements it has parsed stay pg's. No field here may share a name with one of pg's Query
 * (`rows` is its row limit): test/unit/prepared-query.test.ts checks the messages sent.
 */
export class PreparedQuery extends pg.Query {
  private shape?: RowShape;
  private failed?: Error;
  private describedOn?: Wire;

  constructor(
    private readonly statement: string,
    text: string,
    values: unknown[],
    private readonly collected: Array<Record<string, unknown>>,
    done: (err: Error | undefined) => void,
  ) {
    super(text, values, done);
    (this as unknown as { name: string }).name = statement;
  }

  /** pg's Query's `prepare`, without the Describe once the connection described the statement. */
  prepare(connection: Wire): void {
    const known = describedShape(connection, this.statement);
    if (!known) {
      this.describedOn = connection;
      return pgQuery.prepare.call(this, connection);
    }
    this.shape = known;
    const self = this as unknown as { portal: string; values: unknown[]; binary: boolean; rows: number | undefined };
    try {
      connection.bind({
        portal: self.portal,
        statement: this.statement,
        values: self.values,
        binary: self.binary,
        valueMapper: prepareValue,
      });
    } catch (err) {
      // As pg does when a value cannot be bound.
      connection.close({ type: 'S', name: this.statement });
      connection.sync();
      return pgQuery.handleError.call(this, err as Error, connection);
    }
    pgQuery._getRows.call(this, connection, self.rows);
  }

  handleRowDescription(msg: { fields: pg.FieldDef[] }): void {
    this.shape = shapeOf(this.statement, msg.fields);
    if (this.describedOn) rememberShape(this.describedOn, this.statement, this.shape);
  }

  handleDataRow(msg: { fields: Array<string | null> }): void {
    if (this.failed || !this.shape) return;
    let row: Record<string, unknown>;
    try {
      row = rowOf(this.shape, msg.fields);
    } catch (err) {
      // As pg does: the statement still runs to its end, and its caller gets the parse error.
      this.failed = err as Error;
      return;
    }
    this.collected.push(row);
  }

  handleReadyForQuery(connection: unknown): void {
    if (!this.failed) return pgQuery.handleReadyForQuery.call(this, connection);
    const err = this.failed;
    this.failed = undefined;
    pgQuery.handleError.call(this, err, connection);
  }
}

/** Runs the named prepared statement `text` on `client` and answers its rows. */
export function runPrepared<Row>(client: pg.Client, name: string, text: string, values: unknown[]): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    const rows: Array<Record<string, unknown>> = [];
    void client.query(
      new PreparedQuery(name, text, values, rows, (err) => (err ? reject(err) : resolve(rows as Row[]))),
    );
  });
}
