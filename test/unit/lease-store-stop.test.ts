import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import pino from 'pino';
import { TripRiders } from '../../src/db/trip-riders';
import { type WindowAsk, createLeaseStore } from '../../src/rate-limits/lease-store';

// A stopping API instance stops its lease store once its requests are answered, before its pool
// goes (src/runtime/service-process.ts): nothing of it may then reach the database.
describe('the rate-limit lease store of a stopping instance', () => {
  const ask = (key: string): WindowAsk[] => [
    { key, ask: 10, limit: 100, durationMs: 60_000, window: { tokens: 0, points: 0, expiresAt: 0, spent: false } },
  ];
  /** A database whose statements are counted and answered when the test says. */
  const database = () => {
    const sent: Array<() => void> = [];
    const db = {
      raw: () => new Promise((resolve) => sent.push(() => resolve({ rows: [] }))) as unknown as ReturnType<Knex['raw']>,
    } as unknown as Knex;
    return { db, sent };
  };

  it('gives up the leases waiting to ride, sending nothing, and refuses new ones', async () => {
    const { db, sent } = database();
    const store = createLeaseStore({ db, log: pino({ level: 'silent' }), riders: new TripRiders(), leaseMs: 60_000 });
    const waiting = store.lease('a', ask('a'), false);
    await store.stop();
    assert.equal(await waiting, false, 'settled as when the store fails');
    assert.equal(await store.lease('b', ask('b'), true), false);
    assert.equal(sent.length, 0, 'no statement');
  });

  it('waits for a lease under way before it has stopped', async () => {
    const { db, sent } = database();
    const store = createLeaseStore({ db, log: pino({ level: 'silent' }), riders: new TripRiders(), leaseMs: 60_000 });
    const urgent = store.lease('a', ask('a'), true);
    assert.equal(sent.length, 1);
    let stopped = false;
    const stopping = store.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(stopped, false, 'its statement is still under way');
    sent[0]();
    await stopping;
    assert.equal(await urgent, true);
  });
});
