import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { LeaseStore, WindowState } from './lease-store';

// Request budgets shared by every API instance, without a statement per request.
//
// The shared store (PostgreSQL, table rate_limits) counts what it has handed out in each window.
// An instance takes a lease of several requests at once in one upsert, capped so the store never
// hands out more than the limit, and spends it from memory. So:
// - no instance ever lets through a request the store did not grant: across any number of
//   instances a caller gets at most the limit (no over-admission while the store answers);
// - a lease left unspent on one instance is not available to another until the window ends:
//   a caller can be refused up to (instances - 1) x the largest lease early; a lease is at most
//   1/20 of the limit and about `leaseMs` of that caller's traffic;
// - a refusal is decided in memory once an instance has learnt the window is spent (the lease
//   that spent it says so): a 429 costs no statement;
// - a caller sending a request a second or fewer leases one at a time, and a budget under 40 a
//   window always does (1/20 of it is under 2), so small budgets stay exact; a busier caller
//   costs a statement per `leaseMs` of its traffic on each instance it reaches; a lease taken
//   ahead of need rides the next job write's transaction if one comes soon (lease-store.ts).
// If the store fails, the instance applies the same limits in its own memory for that request:
// requests are never refused for the limiter's sake, and a caller gets at most instances x limit
// while the store is away.

export interface WindowSpec {
  /** Requests per window. */
  limit: number;
  durationSeconds: number;
  /** The store's key is `<prefix>:<subject>`. */
  prefix: string;
}

export interface Verdict {
  allowed: boolean;
  /** The limit of the window that decided (the one with the fewest requests left). */
  limit: number;
  remaining: number;
  /** Seconds until that window starts over. */
  resetSeconds: number;
}

interface Subject {
  windows: WindowState[];
  lease: number;
  leasedAt: number;
  spentSinceLease: number;
  /** Its last request, on this host's clock. */
  lastAt: number;
  inflight?: Promise<boolean>;
}

/** A lease is at most this share of a window's limit. */
const LEASE_SHARE = 20;
const SWEEP_EVERY_MS = 60_000;

export function createLeasedLimiter(o: {
  /** The process's one lease store (lease-store.ts), shared by all its limiters. */
  store: LeaseStore;
  windows: WindowSpec[];
  leaseMs: number;
}) {
  const subjects = new Map<string, Subject>();
  const insurance = o.windows.map(
    (w) => new RateLimiterMemory({ points: w.limit, duration: w.durationSeconds, keyPrefix: w.prefix }),
  );
  const caps = o.windows.map((w) => Math.max(1, Math.floor(w.limit / LEASE_SHARE)));
  const { store } = o;
  // The store's name for a subject of this limiter: its windows' prefixes are this limiter's own.
  const askerOf = (id: string) => `${o.windows[0].prefix}:${id}`;
  let sweptAt = Date.now();

  const subjectOf = (id: string): Subject => {
    let s = subjects.get(id);
    if (!s) {
      s = {
        windows: o.windows.map(() => ({ tokens: 0, points: 0, expiresAt: 0, spent: false })),
        lease: 1,
        leasedAt: 0,
        spentSinceLease: 0,
        lastAt: 0,
      };
      subjects.set(id, s);
    }
    return s;
  };

  const rollOver = (s: Subject, now: number) => {
    for (const w of s.windows) {
      if (w.expiresAt !== 0 && w.expiresAt <= now)
        Object.assign(w, { tokens: 0, points: 0, expiresAt: 0, spent: false });
    }
  };

  const sweep = (now: number) => {
    if (now - sweptAt < SWEEP_EVERY_MS) return;
    sweptAt = now;
    for (const [id, s] of subjects) {
      if (!s.inflight && s.windows.every((w) => w.expiresAt <= now)) subjects.delete(id);
    }
  };

  /**
   * Leases more for every window of `s` that is running low; false when the store failed. Ahead
   * of need (`urgent` false), the lease waits up to a quarter of `leaseMs` to ride a trip of the
   * hot path (src/db/trip-riders.ts); a request that needs it sends it, and all waiting, at once.
   */
  const lease = (id: string, s: Subject, urgent: boolean): Promise<boolean> => {
    if (s.inflight) {
      if (urgent) store.hurry(askerOf(id));
      return s.inflight;
    }
    const now = Date.now();
    // Size the lease by the caller's recent rate: a lease should last about leaseMs.
    if (s.leasedAt > 0) {
      const rate = s.spentSinceLease / Math.max(1, now - s.leasedAt);
      s.lease = Math.max(1, Math.ceil(rate * o.leaseMs));
    }
    const wanted = s.windows
      .map((w, i) => ({ i, ask: Math.min(caps[i], s.lease) - w.tokens }))
      .filter(({ i, ask }) => ask > 0 && !s.windows[i].spent);
    if (wanted.length === 0) return Promise.resolve(true);
    s.leasedAt = now;
    s.spentSinceLease = 0;
    const parts = wanted.map(({ i, ask }) => ({
      key: `${o.windows[i].prefix}:${id}`,
      ask,
      limit: o.windows[i].limit,
      durationMs: o.windows[i].durationSeconds * 1000,
      window: s.windows[i],
    }));
    const leased = store.lease(askerOf(id), parts, urgent).then((ok) => {
      s.inflight = undefined;
      return ok;
    });
    s.inflight = leased;
    return leased;
  };

  const verdictOf = (s: Subject, allowed: boolean, now: number): Verdict => {
    const views = s.windows.map((w, i) => ({
      limit: o.windows[i].limit,
      remaining: Math.max(0, o.windows[i].limit - w.points + w.tokens),
      ms: Math.max(0, w.expiresAt - now),
    }));
    const decisive = views.sort((a, b) => a.remaining - b.remaining || b.ms - a.ms)[0];
    return {
      allowed,
      limit: decisive.limit,
      remaining: decisive.remaining,
      resetSeconds: Math.max(1, Math.ceil(decisive.ms / 1000)),
    };
  };

  /** The same limits from this instance's memory, for a request the store could not serve. */
  const fromMemory = async (id: string): Promise<Verdict> => {
    const results = await Promise.all(
      insurance.map((limiter, i) =>
        limiter.consume(id).then(
          (res) => ({ i, res, allowed: true }),
          (res: RateLimiterRes) => ({ i, res, allowed: false }),
        ),
      ),
    );
    const decisive = [...results].sort(
      (a, b) => a.res.remainingPoints - b.res.remainingPoints || b.res.msBeforeNext - a.res.msBeforeNext,
    )[0];
    return {
      allowed: results.every((r) => r.allowed),
      limit: o.windows[decisive.i].limit,
      remaining: Math.max(0, decisive.res.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(decisive.res.msBeforeNext / 1000)),
    };
  };

  return {
    policy: o.windows.map((w) => `${w.limit};w=${w.durationSeconds}`).join(', '),

    async consume(id: string): Promise<Verdict> {
      const s = subjectOf(id);
      const arrived = Date.now();
      // A pause counts as at most leaseMs in the caller's rate: a lease after it is sized by the
      // traffic around it. Averaged over the silence, it would shrink to one request at a time,
      // and the next requests would wait for the store rather than lease ahead of need.
      if (s.lastAt > 0 && arrived - s.lastAt > o.leaseMs) s.leasedAt += arrived - s.lastAt - o.leaseMs;
      s.lastAt = arrived;
      // Every pass spends a token, refuses, or waits for a lease that changes what is held; losing
      // the race for a lease to concurrent requests only means another pass, never the fallback,
      // whose budget is this instance's own.
      for (;;) {
        const now = Date.now();
        sweep(now);
        rollOver(s, now);
        if (s.windows.some((w) => w.tokens < 1 && w.spent)) return verdictOf(s, false, now);
        if (s.windows.every((w) => w.tokens >= 1)) {
          for (const w of s.windows) w.tokens--;
          s.spentSinceLease++;
          // Under steady traffic the next lease is taken before this one runs out; not while a
          // spent window will refuse the next request anyway.
          const blocked = s.windows.some((w) => w.spent && w.tokens < 1);
          if (
            !blocked &&
            s.lease > 1 &&
            s.windows.some((w, i) => !w.spent && w.tokens < Math.min(caps[i], s.lease) / 2)
          )
            void lease(id, s, false);
          return verdictOf(s, true, now);
        }
        if (!(await lease(id, s, true))) return fromMemory(id);
      }
    },
  };
}

export type LeasedLimiter = ReturnType<typeof createLeasedLimiter>;
