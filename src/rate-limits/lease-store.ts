import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Unprepared } from '../db/one-trip';
import { positional } from '../db/prepared';
import type { TripRiders } from '../db/trip-riders';
import { rateLimitLeases } from '../metrics/registry';

/** What an instance holds of one subject's window (src/rate-limits/leased-limiter.ts). */
export interface WindowState {
  /** Leased to this instance and not yet spent. */
  tokens: number;
  /** What the store had handed out in the window at the last lease (all instances). */
  points: number;
  /** On this host's clock; 0 before the first lease. */
  expiresAt: number;
  /** The store had handed out the whole limit: once `tokens` is spent, refuse without asking. */
  spent: boolean;
}

/** A lease of `ask` requests of one window, whose answer lands in `window`. */
export interface WindowAsk {
  key: string;
  ask: number;
  limit: number;
  durationMs: number;
  window: WindowState;
}

const LEASE_SQL = `
  INSERT INTO rate_limits AS r (key, points, expire, lim, granted)
  SELECT v.key, LEAST(v.ask, v.lim), (extract(epoch FROM now()) * 1000)::bigint + v.dur, v.lim, LEAST(v.ask, v.lim)
  FROM unnest(?::text[], ?::int[], ?::int[], ?::bigint[]) AS v(key, ask, lim, dur)
  ON CONFLICT (key) DO UPDATE SET
    points = CASE WHEN coalesce(r.expire, 0) <= (extract(epoch FROM now()) * 1000)::bigint THEN EXCLUDED.points
                  ELSE LEAST(r.points + EXCLUDED.points, EXCLUDED.lim) END,
    granted = CASE WHEN coalesce(r.expire, 0) <= (extract(epoch FROM now()) * 1000)::bigint THEN EXCLUDED.points
                   ELSE GREATEST(0, LEAST(EXCLUDED.points, EXCLUDED.lim - r.points)) END,
    expire = CASE WHEN coalesce(r.expire, 0) <= (extract(epoch FROM now()) * 1000)::bigint THEN EXCLUDED.expire ELSE r.expire END,
    lim = EXCLUDED.lim
  RETURNING key, granted, points, expire - (extract(epoch FROM now()) * 1000)::bigint AS ms_left`;
/**
 * The same, in a trip's transaction. Parsed each time it runs, as the lone lease is: `rate_limits`
 * is looked up on every run, never through a plan a connection kept.
 */
const RIDING_LEASE: Unprepared = { statementName: '', text: positional(LEASE_SQL) };

interface Pending {
  parts: WindowAsk[];
  /** true once its rows are in, false when the store failed. */
  settle(ok: boolean): void;
}

/**
 * The shared store's side of the leased limiters, one per process for all of them: one upsert
 * leases for any number of subjects' windows, its keys in one order everywhere (it locks their
 * rows, and a riding lease holds them until its trip commits; two statements, one per limiter,
 * could lock in opposite orders on two instances and deadlock a job write). A lease asked ahead
 * of need waits up to a quarter of `leaseMs` to ride a trip of the hot path (src/db/trip-riders.ts); then,
 * or when its trip failed, or when a request needs it, it goes alone with every other lease
 * waiting.
 */
export function createLeaseStore(o: { db: Knex; log: Logger; riders?: TripRiders; leaseMs: number }) {
  // A lease is asked ahead of need with about half of `leaseMs` of traffic still held.
  const rideWaitMs = Math.max(1, Math.floor(o.leaseMs / 4));
  const waiting = new Map<string, Pending>();
  let rideBy: NodeJS.Timeout | undefined;
  let warned = false;
  /** Leases sent and not yet answered: a stopping instance waits for them before its pool goes. */
  const underWay = new Set<Promise<void>>();
  let stopped = false;

  const leaseOf = (pending: Pending[]) => {
    const parts = pending.flatMap((p) => p.parts).sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    const values = [
      parts.map((p) => p.key),
      parts.map((p) => p.ask),
      parts.map((p) => p.limit),
      parts.map((p) => p.durationMs),
    ];
    const took = (rows: Array<Record<string, unknown>>) => {
      const answered = Date.now();
      const byKey = new Map(parts.map((p) => [p.key, p]));
      for (const row of rows) {
        const p = byKey.get(String(row.key));
        if (!p) continue;
        const w = p.window;
        const msLeft = Number(row.ms_left);
        // A window that started over in the store while we held tokens of its old one.
        const renewed = w.expiresAt !== 0 && Math.abs(answered + msLeft - w.expiresAt) > 1000;
        w.tokens = (renewed ? 0 : w.tokens) + Number(row.granted);
        w.points = Number(row.points);
        w.expiresAt = answered + msLeft;
        w.spent = w.points >= p.limit;
      }
      for (const p of pending) p.settle(true);
    };
    return { values, took };
  };

  /** Leases in a statement of their own. */
  const send = (pending: Pending[]): Promise<void> => {
    if (stopped) {
      for (const p of pending) p.settle(false);
      return Promise.resolve();
    }
    const sent = sendAlone(pending);
    underWay.add(sent);
    return sent.finally(() => underWay.delete(sent));
  };
  const sendAlone = async (pending: Pending[]) => {
    const lease = leaseOf(pending);
    let rows;
    try {
      rows = (await o.db.raw(LEASE_SQL, lease.values)).rows;
    } catch (err) {
      if (!warned) {
        warned = true;
        o.log.warn({ err: String(err) }, 'rate limit store failed; applying the limits in this instance only');
      }
      rateLimitLeases.inc({ how: 'failed' });
      for (const p of pending) p.settle(false);
      return;
    }
    rateLimitLeases.inc({ how: 'alone' });
    lease.took(rows);
  };

  const takeWaiting = (): Pending[] => {
    clearTimeout(rideBy);
    rideBy = undefined;
    const pending = [...waiting.values()];
    waiting.clear();
    return pending;
  };
  const sendWaiting = () => {
    const pending = takeWaiting();
    if (pending.length > 0) void send(pending);
  };

  o.riders?.offer(() => {
    if (waiting.size === 0) return undefined;
    const pending = takeWaiting();
    const lease = leaseOf(pending);
    return {
      step: { statement: RIDING_LEASE, values: lease.values },
      took: (rows) => {
        rateLimitLeases.inc({ how: 'aboard' });
        lease.took(rows);
      },
      missed: () => void send(pending),
    };
  });

  return {
    /**
     * Leases `parts` for `asker` (a limiter's subject, unique in the process; one lease at a time
     * each): at once when `urgent`, else ahead of need (it may ride).
     */
    lease(asker: string, parts: WindowAsk[], urgent: boolean): Promise<boolean> {
      return new Promise<boolean>((settle) => {
        if (stopped) settle(false);
        else if (urgent || !o.riders) void send([{ parts, settle }]);
        else {
          waiting.set(asker, { parts, settle });
          rideBy ??= setTimeout(sendWaiting, rideWaitMs).unref();
        }
      });
    },
    /** A request needs `asker`'s lease: if it waits to ride, it goes now, with every other waiting. */
    hurry(asker: string): void {
      if (waiting.has(asker)) sendWaiting();
    },
    /**
     * The instance is stopping, its requests answered: leases waiting to ride are given up (their
     * limiters go on alone, as when the store fails) and those under way are waited for, so that
     * none meets a closed pool.
     */
    async stop(): Promise<void> {
      stopped = true;
      for (const p of takeWaiting()) p.settle(false);
      await Promise.all(underWay);
    },
  };
}

export type LeaseStore = ReturnType<typeof createLeaseStore>;
