import type { Knex } from 'knex';
import { dbPoolWait } from '../metrics/registry';

interface TarnPool {
  on(event: 'acquireRequest', handler: (eventId: number) => void): void;
  on(event: 'acquireSuccess' | 'acquireFail', handler: (eventId: number) => void): void;
}

/**
 * Times every acquire of the process's knex pool into compute_db_pool_wait_seconds: a request's
 * latency that is neither its statement nor the event loop is often this queue.
 */
export function observePoolWaits(db: Knex): void {
  const pool = (db.client as { pool?: TarnPool }).pool;
  if (!pool) return;
  const asked = new Map<number, bigint>();
  pool.on('acquireRequest', (id) => asked.set(id, process.hrtime.bigint()));
  const done = (id: number) => {
    const at = asked.get(id);
    if (at === undefined) return;
    asked.delete(id);
    dbPoolWait.observe(Number(process.hrtime.bigint() - at) / 1e9);
  };
  pool.on('acquireSuccess', done);
  pool.on('acquireFail', done);
}
