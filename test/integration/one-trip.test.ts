// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type pg from 'pg';
import { createDb } from '../../src/db/knex';
import { inOneTrip } from '../../src/db/one-trip';
import { prepared } from '../../src/db/prepared';
import { testEnv } from '../support/env';

// A table of the test's own; each statement names it, prepared by name as the hot path's are.
const TABLE = 'one_trip_probe';
const insert = prepared('one_trip_insert', `INSERT INTO ${TABLE} (k, n) VALUES ($1, 0)`);
const bump = prepared('one_trip_bump', `UPDATE ${TABLE} SET n = n + 1 WHERE k = $1 RETURNING k, n`);
const divide = prepared('one_trip_divide', 'SELECT 1 / $1::int AS q');

/** A pool of one connection: its first call meets the statements, every later one has them parsed. */
const oneConnection = () => createDb(testEnv().config.databaseUrl!, { max: 1 });
const parsedOn = async (db: Knex) => {
  const client = db.client as {
    acquireConnection(): Promise<pg.Client>;
    releaseConnection(c: pg.Client): Promise<void>;
  };
  const c = await client.acquireConnection();
  await client.releaseConnection(c);
  return Object.keys((c as unknown as { connection: { parsedStatements: object } }).connection.parsedStatements);
};
const stored = async (k: string) => (await testEnv().db(TABLE).where({ k }).first('n'))?.n as number | undefined;

describe('statements that commit together in one round trip (src/db/one-trip.ts), on PostgreSQL', () => {
  before(() => testEnv().db.raw(`CREATE TABLE IF NOT EXISTS ${TABLE} (k text PRIMARY KEY, n int NOT NULL)`));
  after(() => testEnv().db.raw(`DROP TABLE IF EXISTS ${TABLE}`));

  it('commits every statement, each seeing what the ones before it wrote: on a first call and in one trip after it', async () => {
    const db = oneConnection();
    try {
      for (const [k, parsedBefore] of [
        [`a-${Date.now()}`, false],
        [`b-${Date.now()}`, true],
      ] as const) {
        assert.equal((await parsedOn(db)).includes('one_trip_bump'), parsedBefore);
        const [inserted, bumped] = await inOneTrip(db, [
          { statement: insert, values: [k] },
          { statement: bump, values: [k] },
        ]);
        assert.deepEqual([inserted, bumped], [[], [{ k, n: 1 }]]);
        assert.equal(await stored(k), 1, 'committed, seen from another connection');
      }
    } finally {
      await db.destroy();
    }
  });

  it('rolls every statement back when a later one fails, and the connection goes on: on a first call and in one trip', async () => {
    const db = oneConnection();
    try {
      for (const k of [`c-${Date.now()}`, `d-${Date.now()}`]) {
        await assert.rejects(
          inOneTrip(db, [
            { statement: insert, values: [k] },
            { statement: bump, values: [k] },
            { statement: divide, values: [0] },
          ]),
          /division by zero/,
        );
        assert.equal(await stored(k), undefined, 'nothing of it kept');
        assert.deepEqual((await db.raw('SELECT 1 AS one')).rows, [{ one: 1 }], 'the connection is usable');
      }
      assert.ok((await parsedOn(db)).includes('one_trip_divide'));
    } finally {
      await db.destroy();
    }
  });

  it('runs the statements on a transaction as its own, which commits or rolls back all it holds', async () => {
    const k = `e-${Date.now()}`;
    await assert.rejects(
      testEnv().db.transaction(async (trx) => {
        await inOneTrip(trx, [
          { statement: insert, values: [k] },
          { statement: bump, values: [k] },
        ]);
        assert.equal((await trx(TABLE).where({ k }).first('n')).n, 1);
        throw new Error('the caller gives up');
      }),
      /gives up/,
    );
    assert.equal(await stored(k), undefined);
  });

  it('describes a statement once per connection, reads its later rows by that shape, and a changed row type is refused, not misread', async () => {
    const table = `${TABLE}_shape`;
    const read = prepared('one_trip_shape_read', `SELECT k, n FROM ${table} WHERE k = $1`);
    await testEnv().db.raw(`CREATE TABLE ${table} (k text PRIMARY KEY, n int NOT NULL)`);
    const db = oneConnection();
    try {
      await testEnv().db(table).insert({ k: 'x', n: 1 });
      const client = db.client as {
        acquireConnection(): Promise<pg.Client>;
        releaseConnection(c: pg.Client): Promise<void>;
      };
      const c = await client.acquireConnection();
      await client.releaseConnection(c);
      let descriptions = 0;
      (c as unknown as { connection: NodeJS.EventEmitter }).connection.on('rowDescription', () => descriptions++);
      for (let i = 0; i < 3; i++) {
        assert.deepEqual(await read(db, ['x']), [{ k: 'x', n: 1 }]);
        const [[inTrip]] = await inOneTrip(db, [
          { statement: read, values: ['x'] },
          { statement: bump, values: ['none'] },
        ]);
        assert.deepEqual(inTrip, { k: 'x', n: 1 });
      }
      assert.equal(
        descriptions,
        2,
        'each statement described on its first run only (the read alone, the bump in the first trip)',
      );

      // int to bigint: pg would parse the new type as a string, where the shape it knows says a number.
      await testEnv().db.raw(`ALTER TABLE ${table} ALTER COLUMN n TYPE bigint`);
      await assert.rejects(read(db, ['x']), /cached plan must not change result type/);
    } finally {
      await db.destroy();
      await testEnv().db.raw(`DROP TABLE IF EXISTS ${table}`);
    }
  });
});
