import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { holding } from '../../src/db/held-transaction';
import { prepared } from '../../src/db/prepared';
import { testEnv } from '../support/env';

const probe = prepared<{ one: number }>('test_held_probe', 'SELECT 1 AS one');

describe('a transaction held across a call elsewhere', () => {
  it('is ended by PostgreSQL once idle past its limit, and the pool goes on with a new connection', async () => {
    const { db } = testEnv();
    await assert.rejects(
      holding(
        db,
        { statement: probe, values: [] },
        async (rows, held) => {
          assert.deepEqual(rows, [{ one: 1 }]);
          // A process that hangs here: its session is ended under it.
          await sleep(1500);
          await held.commit([]);
        },
        { idleLimitMs: 300 },
      ),
    );
    assert.deepEqual(await probe(db, []), [{ one: 1 }]);
    // Within its limit, it commits as any other.
    const answer = await holding(db, { statement: probe, values: [] }, async (_rows, held) => {
      await sleep(100);
      return held.commit([{ statement: probe, values: [] }]);
    });
    assert.deepEqual(answer, [[{ one: 1 }]]);
  });
});
