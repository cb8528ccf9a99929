import assert from 'node:assert/strict';
import { OneTripQuery, type Step } from '../../src/db/one-trip';
import { prepared } from '../../src/db/prepared';
import { field, recordingConnection } from '../support/recording-connection';

const recording = () =>
  recordingConnection(
    (o) => {
      if ('statement' in o) return ` ${JSON.stringify(o.statement)} ${JSON.stringify(o.values)}`;
      return 'text' in o ? ` ${JSON.stringify(o.name)} ${String(o.text)}` : '';
    },
    {
      corks: true,
    },
  );

const write = prepared('ot-write', 'UPDATE t SET at = $1 WHERE id = $2 RETURNING id, n');
const entry = prepared('ot-entry', 'INSERT INTO u SELECT $1');
const steps = (at: unknown): Step[] => [
  { statement: write, values: [at, 'job_1'] },
  { statement: entry, values: ['lease_1'] },
];

describe('statements that commit together, in one round trip', () => {
  it('sends each statement’s bind, describe and execute, then one sync, corked', () => {
    const { sent, connection } = recording();
    const q = new OneTripQuery(steps(new Date('2026-12-06T12:00:00Z')), () => undefined);
    assert.equal(q.submit(connection), null);
    assert.equal(sent[0], 'cork');
    assert.match(
      sent[1],
      /^bind "ot-write" \["2026-12-06T\d\d:00:00\.000[+-]\d\d:\d\d","job_1"\]$/,
      'a Date as pg binds it',
    );
    assert.deepEqual(sent.slice(2), [
      'describe',
      'execute',
      'bind "ot-entry" ["lease_1"]',
      'describe',
      'execute',
      'sync',
      'uncork',
    ]);
  });

  it('parses an unprepared statement in the trip itself, as the unnamed statement', () => {
    const { sent, connection } = recording();
    const lease = { statementName: '' as const, text: 'UPDATE r SET n = n + $1 RETURNING n' };
    const q = new OneTripQuery([...steps('at'), { statement: lease, values: [3] }], () => undefined);
    assert.equal(q.submit(connection), null);
    assert.deepEqual(sent.slice(-7), [
      'execute',
      'parse "" UPDATE r SET n = n + $1 RETURNING n',
      'bind "" ["3"]',
      'describe',
      'execute',
      'sync',
      'uncork',
    ]);
    assert.deepEqual(connection.parsedStatements, {}, 'no name for pg to remember');
  });

  it('answers each statement’s rows, parsed by type', () => {
    const { connection } = recording();
    let answered: { err?: Error } | undefined;
    const q = new OneTripQuery(steps(null), (err) => (answered = { err }));
    q.submit(connection);
    q.handleRowDescription({ fields: [field('id', 25), field('n', 23)] });
    q.handleDataRow({ fields: ['job_1', '7'] });
    q.handleCommandComplete();
    q.handleCommandComplete();
    assert.equal(answered, undefined, 'not before the transaction ended');
    q.handleReadyForQuery();
    assert.deepEqual(answered, { err: undefined });
    assert.deepEqual(q.results, [[{ id: 'job_1', n: 7 }], []]);
  });

  it('sends nothing when a value cannot be bound: a sync after some statements would commit them alone', () => {
    const { sent, connection } = recording();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const q = new OneTripQuery([{ statement: entry, values: ['lease_1'] }, ...steps(circular)], () => undefined);
    assert.ok(q.submit(connection) instanceof Error);
    assert.deepEqual(sent, []);
  });

  it('answers an error once: the first, not the ready that follows it', () => {
    const { connection } = recording();
    const answers: Array<Error | undefined> = [];
    const q = new OneTripQuery(steps(null), (err) => answers.push(err));
    q.submit(connection);
    q.handleError(new Error('deadlock detected'));
    q.handleReadyForQuery();
    assert.deepEqual(
      answers.map((e) => e?.message),
      ['deadlock detected'],
    );
  });

  it('skips the Describe of a statement the connection described, and reads its rows by that shape', () => {
    const { sent, connection } = recording();
    connection.parsedStatements['ot-write'] = write.text;
    connection.parsedStatements['ot-entry'] = entry.text;
    const first = new OneTripQuery(steps(null), () => undefined);
    first.submit(connection);
    first.handleRowDescription({ fields: [field('id', 25), field('n', 23)] });
    first.handleCommandComplete();
    first.handleCommandComplete();
    first.handleReadyForQuery();

    sent.length = 0;
    const second = new OneTripQuery(steps(null), () => undefined);
    second.submit(connection);
    // The entry returns no rows, so nothing was described to remember: it is described again.
    assert.deepEqual(sent.slice(1, -1), [
      'bind "ot-write" [null,"job_1"]',
      'execute',
      'bind "ot-entry" ["lease_1"]',
      'describe',
      'execute',
      'sync',
    ]);
    second.handleDataRow({ fields: ['job_2', '8'] });
    second.handleCommandComplete();
    second.handleCommandComplete();
    second.handleReadyForQuery();
    assert.deepEqual(second.results, [[{ id: 'job_2', n: 8 }], []]);
  });
});
