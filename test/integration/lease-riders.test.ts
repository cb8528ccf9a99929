// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { createDb } from '../../src/db/knex';
import { inOneTrip } from '../../src/db/one-trip';
import { prepared } from '../../src/db/prepared';
import { TripRiders } from '../../src/db/trip-riders';
import { type WindowSpec, createLeasedLimiter } from '../../src/rate-limits/leased-limiter';
import { createLeaseStore } from '../../src/rate-limits/lease-store';
import { rateLimitLeases } from '../../src/metrics/registry';
import { waitFor } from '../support/agents';
import { quietLog, testEnv } from '../support/env';

// A lease asked ahead of need waits a quarter of this to ride: long enough that only a trip, a
// failed trip or a request that needs it can send it within a test.
const LEASE_MS = 60_000;
const LIMIT = 2000;

const one = prepared('lease_riders_one', 'SELECT $1::int AS n');
const divide = prepared('lease_riders_divide', 'SELECT 1 / $1::int AS n');

/** A limiter of one window, with a lease store of its own, as services.ts makes them. */
function limiterOn(db: Knex, riders: TripRiders, window: WindowSpec, leaseMs: number) {
  const store = createLeaseStore({ db, log: quietLog, riders, leaseMs });
  return createLeasedLimiter({ store, windows: [window], leaseMs });
}

/** compute_rate_limit_leases_total by how; nothing else in this lane leases while a test runs. */
async function leasesCounted(): Promise<Record<'aboard' | 'alone' | 'failed', number>> {
  const by = Object.fromEntries((await rateLimitLeases.get()).values.map((v) => [v.labels.how, v.value]));
  return { aboard: by.aboard ?? 0, alone: by.alone ?? 0, failed: by.failed ?? 0 };
}

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
    const limiter = limiterOn(db, riders, { limit: LIMIT, durationSeconds: 60, prefix }, LEASE_MS);
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
    const counted = await leasesCounted();
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
    assert.deepEqual(await leasesCounted(), { ...counted, aboard: counted.aboard + 1 });
  });

  it('every limiter’s leases ride as one statement, their keys in one order', async () => {
    const riders = new TripRiders();
    const store = createLeaseStore({ db, log: quietLog, riders, leaseMs: LEASE_MS });
    const tag = crypto.randomUUID().slice(0, 8);
    const limiters = ['b', 'a'].map((p) =>
      createLeasedLimiter({
        store,
        windows: [{ limit: LIMIT, durationSeconds: 60, prefix: `rl_${p}_${tag}` }],
        leaseMs: LEASE_MS,
      }),
    );
    for (const limiter of limiters)
      for (let i = 0; i < 2 + LIMIT / 20 / 2; i++) assert.equal((await limiter.consume('s')).allowed, true);
    await one(db, [1]);
    const sent: Array<{ sql: string; bindings: unknown[] }> = [];
    const onQuery = (q: { sql: string; bindings: unknown[] }) => sent.push(q);
    db.on('query', onQuery);
    try {
      await inOneTrip(
        db,
        [
          { statement: one, values: [7] },
          { statement: one, values: [8] },
        ],
        riders,
      );
    } finally {
      db.off('query', onQuery);
    }
    const leases = sent.filter((q) => /\brate_limits\b/.test(q.sql));
    assert.equal(leases.length, 1, 'one statement for both');
    assert.deepEqual(leases[0].bindings[0], [`rl_a_${tag}:s`, `rl_b_${tag}:s`]);
  });

  it('a lease whose trip failed goes alone, and the trip’s error is its caller’s', async () => {
    const { riders, handed, heldBefore } = await waitingToRide();
    await one(db, [1]);
    await divide(db, [1]);
    const counted = await leasesCounted();
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
    assert.deepEqual(await leasesCounted(), { ...counted, alone: counted.alone + 1 });
  });

  it('a request that needs the waiting lease sends it at once', async () => {
    const { limiter, handed, heldBefore } = await waitingToRide();
    const started = Date.now();
    // Spend what is held, and more: every request is let through with no trip to ride.
    for (let i = 0; i < LIMIT / 20; i++) assert.equal((await limiter.consume('s')).allowed, true);
    assert.ok(Date.now() - started < LEASE_MS / 4 / 3, `${Date.now() - started} ms`);
    assert.ok((await handed()) > heldBefore);
  });

  it('sizes the lease after a pause by the traffic around it: the requests after the pause wait for no lease', async function () {
    this.timeout(30_000);
    // Counts the leases that rode; every other lease statement this database sends went alone.
    const riders = new (class extends TripRiders {
      aboard = 0;
      override board() {
        const b = super.board();
        this.aboard += b.length;
        return b;
      }
    })();
    let leases = 0;
    const onQuery = (q: { sql: string }) => {
      if (/\brate_limits\b/.test(q.sql)) leases++;
    };
    db.on('query', onQuery);
    try {
      // A budget no test reaches: each lease is sized by the caller's rate alone.
      const prefix = `rl_pause_${crypto.randomUUID().slice(0, 8)}`;
      const limiter = limiterOn(db, riders, { limit: 10_000_000, durationSeconds: 60, prefix }, 200);
      await one(db, [1]);
      // Each request is followed by a job write, which a lease asked ahead of need rides.
      const traffic = async () => {
        for (let i = 0; i < 40; i++) {
          assert.equal((await limiter.consume('s')).allowed, true);
          await inOneTrip(
            db,
            [
              { statement: one, values: [1] },
              { statement: one, values: [2] },
            ],
            riders,
          );
          await sleep(10);
        }
      };
      await traffic();
      // Twenty leases' worth of silence: averaged over it, the caller's rate would be a request
      // or two a second, its leases one request each, and the next request would wait for one.
      await sleep(4000);
      const before = { leases, aboard: riders.aboard };
      await traffic();
      const rode = riders.aboard - before.aboard;
      assert.ok(rode > 0, 'leases were taken after the pause');
      assert.equal(
        leases - before.leases - rode,
        0,
        `${leases - before.leases - rode} leases went alone after the pause`,
      );
    } finally {
      db.off('query', onQuery);
    }
  });
});
