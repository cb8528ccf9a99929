// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { createDb } from '../../src/db/knex';
import { inOneTrip } from '../../src/db/one-trip';
import { prepared } from '../../src/db/prepared';
import { TripRiders } from '../../src/db/trip-riders';
import { createLeasedLimiter } from '../../src/rate-limits/leased-limiter';
import { waitFor } from '../support/agents';
import { quietLog, testEnv } from '../support/env';

// A lease asked ahead of need waits a quarter of this to ride: long enough that only a trip, a
// failed trip or a request that needs it can send it within a test.
const LEASE_MS = 60_000;
const LIMIT = 2000;

const one = prepared('lease_riders_one', 'SELECT $1::int AS n');
const divide = prepared('lease_riders_divide', 'SELECT 1 / $1::int AS n');

describe('rate-limit leases ride the job writes’ trips', () => {
  let db: Knex;
  before(() => {
    // One connection: the trip runs where its statements were met.
    db = createDb(testEnv().config.databaseUrl!, { max: 1 });
  });
  after(() => db.destroy());

  /** A limiter on a fresh subject, spent until its lease ahead of need waits to ride. */
  async function waitingToRide() {
    const riders = new TripRiders();
    const prefix = `rl_ride_${crypto.randomUUID().slice(0, 8)}`;
    const limiter = createLeasedLimiter({
      db,
      windows: [{ limit: LIMIT, durationSeconds: 60, prefix }],
      leaseMs: LEASE_MS,
      log: quietLog,
      riders,
    });
    const handed = async () =>
      Number(
        (
          await db('rate_limits')
            .where({ key: `${prefix}:s` })
            .first()
        )?.points ?? 0,
      );
    // The first request leases one; the next, seen at this rate, a whole share (LIMIT / 20); once
    // half of that is spent, the next lease is asked ahead of need.
    for (let i = 0; i < 2 + LIMIT / 20 / 2; i++) assert.equal((await limiter.consume('s')).allowed, true);
    return { riders, limiter, handed, heldBefore: await handed() };
  }

  it('a lease asked ahead of need commits in the next trip, not in a transaction of its own', async () => {
    const { riders, handed, heldBefore } = await waitingToRide();
    assert.equal(heldBefore, 1 + LIMIT / 20, 'the first two leases went alone');
    // Both statements met on the connection, so the next trip goes as one round trip.
    await one(db, [1]);
    const [rows] = await inOneTrip(
      db,
      [
        { statement: one, values: [7] },
        { statement: one, values: [8] },
      ],
      riders,
    );
    assert.deepEqual(rows, [{ n: 7 }], 'the trip answers its own rows, not its riders');
    assert.ok((await handed()) > heldBefore, 'the lease committed with the trip');
  });

  it('a lease whose trip failed goes alone, and the trip’s error is its caller’s', async () => {
    const { riders, handed, heldBefore } = await waitingToRide();
    await one(db, [1]);
    await divide(db, [1]);
    await assert.rejects(
      inOneTrip(
        db,
        [
          { statement: one, values: [7] },
          { statement: divide, values: [0] },
        ],
        riders,
      ),
      /division by zero/,
    );
    await waitFor('the lease to go alone', async () => (await handed()) > heldBefore, 10_000);
  });

  it('a request that needs the waiting lease sends it at once', async () => {
    const { limiter, handed, heldBefore } = await waitingToRide();
    const started = Date.now();
    // Spend what is held, and more: every request is let through with no trip to ride.
    for (let i = 0; i < LIMIT / 20; i++) assert.equal((await limiter.consume('s')).allowed, true);
    assert.ok(Date.now() - started < LEASE_MS / 4 / 3, `${Date.now() - started} ms`);
    assert.ok((await handed()) > heldBefore);
  });
});
