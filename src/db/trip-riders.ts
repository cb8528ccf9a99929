import type { RiderStep } from './one-trip';

type Rows = Array<Record<string, unknown>>;

/** A write taken aboard a trip: its step goes last in the trip's transaction. */
export interface Boarded {
  step: RiderStep;
  /** Its rows, once the trip committed; must not throw (the trip's caller has its answer to get). */
  took(rows: Rows): void;
  /** The trip failed: nothing of the write was kept, and it is still to be made. */
  missed(): void;
}

/** Where writes wait to ride; each source answers what it has waiting, taken off its wait. */
export type RiderSource = () => Boarded | undefined;

/**
 * Writes that need not commit at once (a rate-limit lease taken ahead of need) wait here for a
 * trip of the hot path (src/db/one-trip.ts) and commit in its transaction: no transaction, round
 * trip or WAL flush of their own. A source sends what it has alone when no trip comes soon
 * enough. A rider must not fail by its data (it would roll its trip back with it) and must take
 * its row locks in one order everywhere (its trip holds them until it commits), with every other
 * rider's too: so a kind of write has one source per process (the rate limiters share one lease
 * store, which sends all their leases in one statement, its keys sorted).
 */
export class TripRiders {
  private readonly sources: RiderSource[] = [];

  /** Registers a source; sources board in the order they registered. */
  offer(source: RiderSource): void {
    this.sources.push(source);
  }

  /** Everything waiting to ride, taken off the wait. */
  board(): Boarded[] {
    const aboard: Boarded[] = [];
    for (const source of this.sources) {
      const b = source();
      if (b) aboard.push(b);
    }
    return aboard;
  }
}
