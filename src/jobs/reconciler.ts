import type { Logger } from 'pino';
import type { ApiConfig } from '../config';
import type { JobsService } from './service';
import type { Transitions } from './transitions';

/** Slack beyond the loss window: past it, the run should have written what it decided. */
const SETTLE_MS = 30_000;
/** How far back the first sweep looks for closed runs: a restart's worth of crash windows. */
const FIRST_LOOKBACK_MS = 10 * 60_000;
/**
 * Past this, a run's held submit has committed or never will: its start's call budget is 10 s,
 * and PostgreSQL ends a held transaction idle for a minute (src/db/held-transaction.ts).
 */
const UNCOMMITTED_AFTER_MS = 120_000;
/** Reservations that ran out are freed and announced this many times a sweep interval (5 s at 30 s). */
const RESERVATION_PASSES_PER_SWEEP = 6;

/**
 * Periodically settles what a crash of some API instance left half-done: submits interrupted
 * between their steps, runs whose submit never committed, rows left behind their workflow by a transition whose write was lost, and
 * (every few seconds, apart) reservations whose claim never wrote; and removes expired
 * idempotency keys.
 * Each sweep reads every run closed since its watermark, the start of the sweep before less an
 * interval (visibility lists a closed run a little late), and moves it only once every row behind
 * those runs is repaired: a sweep that fails midway, or leaves a row, reads from the same
 * watermark again. A sweep runs to the end of the list, however long; the next waits for it.
 */
export function startReconciler(o: {
  jobs: JobsService;
  transitions: Transitions;
  config: Pick<ApiConfig, 'durations'>;
  log: Logger;
}): () => void {
  const intervalMs = o.config.durations.reconcileIntervalMs;
  let since = new Date(Date.now() - FIRST_LOOKBACK_MS);
  /** Runs started before this were all checked for a row. */
  let startedSince = since;
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    const startedAt = new Date();
    void (async () => {
      try {
        await o.jobs.reconcile();
        const startedBefore = new Date(startedAt.getTime() - UNCOMMITTED_AFTER_MS);
        if (startedBefore > startedSince) {
          // A window that could not be read whole is read again by the next sweep.
          await o.jobs.endRunsWithoutRows(startedSince, startedBefore).then(
            () => (startedSince = startedBefore),
            (err: unknown) => o.log.warn({ err: String(err) }, 'could not check recent runs for their rows'),
          );
        }
        await o.jobs.sweepIdempotencyKeys();
        const { caughtUp } = await o.transitions.repairBehind({
          silentForMs: o.config.durations.agentLostAfterMs + SETTLE_MS,
          closedSince: since,
        });
        if (caughtUp) since = new Date(startedAt.getTime() - intervalMs);
        else
          o.log.warn(
            { since },
            'some rows behind their closed runs are not repaired; the next sweep reads from the same watermark',
          );
      } catch (err) {
        o.log.warn({ err: String(err) }, 'reconcile failed');
      } finally {
        running = false;
      }
    })();
  }, intervalMs);
  // Expired reservations on a timer of their own: a sweep slowed by runs that cannot answer must
  // not keep idle nodes, which skip their claims until notified, from a freed job.
  let releasing = false;
  const reservations = setInterval(() => {
    if (releasing) return;
    releasing = true;
    o.transitions
      .releaseExpiredReservations()
      .catch((err: unknown) => o.log.warn({ err: String(err) }, 'freeing expired reservations failed'))
      .finally(() => (releasing = false));
  }, intervalMs / RESERVATION_PASSES_PER_SWEEP);
  return () => {
    clearInterval(timer);
    clearInterval(reservations);
  };
}
