import assert from 'node:assert/strict';
import type pg from 'pg';
import { PreparedQuery } from '../../src/db/prepared-query';
import { field, recordingConnection } from '../support/recording-connection';

type Protocol = {
  submit(c: unknown): unknown;
  handleRowDescription(m: unknown): void;
  handleDataRow(m: unknown): void;
  handleCommandComplete(m: unknown, c: unknown): void;
  handleReadyForQuery(c: unknown): void;
};

function run(name: string, fields: pg.FieldDef[], data: Array<Array<string | null>>) {
  const { sent, connection } = recordingConnection((o) =>
    o.rows !== undefined ? ` rows=${JSON.stringify(o.rows)}` : '',
  );
  const rows: Array<Record<string, unknown>> = [];
  let answered: { err?: Error } | undefined;
  const q = new PreparedQuery(name, 'SELECT …', [1], rows, (err) => (answered = { err })) as unknown as Protocol;
  assert.equal(q.submit(connection), null);
  q.handleRowDescription({ fields });
  for (const d of data) q.handleDataRow({ fields: d });
  q.handleCommandComplete({ text: `SELECT ${data.length}` }, connection);
  q.handleReadyForQuery(connection);
  return { sent, rows, answered };
}

describe('a prepared statement run as pg’s Query', () => {
  it('asks in one round trip: parse, bind, describe, execute and sync, with no row limit', () => {
    const { sent, answered } = run('pq-one-trip', [field('n', 23)], [['1']]);
    // A field of ours named like one of pg's (`rows` is its row limit) would turn this into an
    // execute with a limit, a flush, and a sync only after the answer: a second round trip.
    assert.deepEqual(sent, ['parse', 'bind', 'describe', 'execute', 'sync']);
    assert.equal(answered?.err, null);
  });

  it('builds each row with its columns in order, parsed by type, nulls kept', () => {
    const { rows } = run(
      'pq-rows',
      [field('id', 25), field('n', 23), field('big', 20), field('at', 1184), field('gone', 1184)],
      [
        ['job_1', '7', '42', '2026-12-06 11:00:00.5+00', null],
        ['job_2', '8', '43', '2026-12-06 11:00:01+00', null],
      ],
    );
    assert.deepEqual(
      rows.map((r) => Object.keys(r)),
      [
        ['id', 'n', 'big', 'at', 'gone'],
        ['id', 'n', 'big', 'at', 'gone'],
      ],
    );
    assert.equal(rows[0].n, 7);
    assert.equal((rows[0].at as Date).toISOString(), '2026-12-06T11:00:00.500Z');
    assert.equal(rows[1].gone, null);
  });

  it('reads a statement’s shape again when its columns change', () => {
    run('pq-shape', [field('a', 23)], [['1']]);
    const { rows } = run('pq-shape', [field('a', 25), field('b', 23)], [['x', '2']]);
    assert.deepEqual(rows, [{ a: 'x', b: 2 }]);
  });

  it('skips the Describe on a connection that described the statement, and builds rows with that shape', () => {
    const { sent, connection } = recordingConnection();
    const runOn = () => {
      const rows: Array<Record<string, unknown>> = [];
      let answered: { err?: Error } | undefined;
      const q = new PreparedQuery(
        'pq-known',
        'SELECT …',
        [1],
        rows,
        (err) => (answered = { err }),
      ) as unknown as Protocol;
      sent.length = 0;
      assert.equal(q.submit(connection), null);
      return { q, rows, finish: () => (q.handleReadyForQuery(connection), answered) };
    };
    // Described before it is parsed (pg marks it parsed on ParseComplete): not yet known.
    const first = runOn();
    assert.deepEqual(sent, ['parse', 'bind', 'describe', 'execute', 'sync']);
    first.q.handleRowDescription({ fields: [field('id', 25), field('n', 23)] });
    connection.parsedStatements['pq-known'] = 'SELECT …';
    first.finish();

    const second = runOn();
    assert.deepEqual(sent, ['bind', 'execute', 'sync']);
    second.q.handleDataRow({ fields: ['job_1', '7'] });
    second.q.handleCommandComplete({ text: 'SELECT 1' }, connection);
    assert.deepEqual(second.finish(), { err: null });
    assert.deepEqual(second.rows, [{ id: 'job_1', n: 7 }]);

    // Another connection has not described it, even with the statement parsed there.
    const other = recordingConnection();
    other.connection.parsedStatements['pq-known'] = 'SELECT …';
    new PreparedQuery('pq-known', 'SELECT …', [1], [], () => undefined).submit(other.connection as never);
    assert.deepEqual(other.sent, ['bind', 'describe', 'execute', 'sync']);
  });

  it('answers a row it cannot parse as an error, once the statement has ended', () => {
    const { sent, answered } = run('pq-bad', [field('doc', 3802)], [['{"ok":true}'], ['{not json']]);
    assert.ok(answered?.err instanceof SyntaxError, String(answered?.err));
    assert.deepEqual(sent, ['parse', 'bind', 'describe', 'execute', 'sync']);
  });
});
