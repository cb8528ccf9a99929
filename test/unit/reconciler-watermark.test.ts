import assert from 'node:assert/strict';
import type { Logger } from 'pino';
import type { ApiConfig } from '../../src/config';
import { startReconciler } from '../../src/jobs/reconciler';
import type { JobsService } from '../../src/jobs/service';
import type { Transitions } from '../../src/jobs/transitions';

const INTERVAL_MS = 20;
const noop = () => undefined;

/**
 * A reconciler over stand-ins: each sweep's repair answers the next of `outcomes` (a thrown
 * error is a sweep that failed midway). Resolves to the watermark each sweep read from, and
 * when each sweep started.
 */
async function sweepsOver(outcomes: Array<boolean | Error>) {
  const seen: Array<{ since: number; at: number }> = [];
  const transitions = {
    async repairBehind(o: { closedSince: Date }) {
      seen.push({ since: o.closedSince.getTime(), at: Date.now() });
      const outcome = outcomes[seen.length - 1];
      if (outcome instanceof Error) throw outcome;
      return { repaired: 0, caughtUp: outcome ?? true };
    },
    releaseExpiredReservations: async () => ({ released: 0, repaired: 0 }),
  } as unknown as Transitions;
  const jobs = {
    reconcile: async () => ({}),
    sweepIdempotencyKeys: async () => 0,
    endRunsWithoutRows: async () => 0,
  } as unknown as JobsService;
  const config = { durations: { reconcileIntervalMs: INTERVAL_MS, agentLostAfterMs: 0 } } as ApiConfig;
  const log = { warn: noop, info: noop } as unknown as Logger;
  const stop = startReconciler({ jobs, transitions, config, log });
  while (seen.length < outcomes.length + 1) await new Promise((r) => setTimeout(r, 5));
  stop();
  return seen;
}

describe('the reconciler moves its watermark only past what it repaired', () => {
  it('reads again from the same watermark after a sweep that failed midway or left a row, and moves on once one catches up', async () => {
    const seen = await sweepsOver([new Error('visibility went away on page 3'), false, true]);
    const first = seen[0]!.since;
    assert.deepEqual(
      seen.slice(0, 3).map((s) => s.since),
      [first, first, first],
      'the failed sweep and the one that left a row move nothing',
    );
    // The sweep that caught up moves the watermark to its own start less an interval. Its start
    // lies after the second sweep's repair and before its own: bounds no preemption can break.
    assert.ok(
      seen[3]!.since >= seen[1]!.at - INTERVAL_MS && seen[3]!.since <= seen[2]!.at - INTERVAL_MS,
      `${seen[3]!.since - seen[2]!.at} ms from the third sweep's repair, ${seen[3]!.since - seen[1]!.at} from the second's`,
    );
  });
});

describe('the reconciler frees expired reservations apart from its sweeps', () => {
  it('keeps freeing them while a sweep hangs', async () => {
    let sweeps = 0;
    let passes = 0;
    const transitions = {
      // A sweep held up by runs that cannot answer: it never ends while the test watches.
      repairBehind: () => (sweeps++, new Promise(() => undefined)),
      releaseExpiredReservations: async () => (passes++, { released: 0, repaired: 0 }),
    } as unknown as Transitions;
    const jobs = {
      reconcile: async () => ({}),
      sweepIdempotencyKeys: async () => 0,
      endRunsWithoutRows: async () => 0,
    } as unknown as JobsService;
    const config = { durations: { reconcileIntervalMs: INTERVAL_MS, agentLostAfterMs: 0 } } as ApiConfig;
    const stop = startReconciler({ jobs, transitions, config, log: { warn: noop, info: noop } as unknown as Logger });
    // Twelve passes take two sweep intervals: the hung sweep would have been followed by two more.
    while (passes < 12) await new Promise((r) => setTimeout(r, 5));
    stop();
    assert.equal(sweeps, 1, 'the next sweep waits for the hung one');
  });
});

describe('the reconciler checks each window of started runs for rows once', () => {
  it('reads a window again after a check that failed, then goes on from its end; the repair runs either way', async () => {
    const windows: Array<{ from: number; to: number }> = [];
    let repairs = 0;
    const transitions = {
      repairBehind: async () => (repairs++, { repaired: 0, caughtUp: true }),
      releaseExpiredReservations: async () => ({ released: 0, repaired: 0 }),
    } as unknown as Transitions;
    const jobs = {
      reconcile: async () => ({}),
      sweepIdempotencyKeys: async () => 0,
      async endRunsWithoutRows(from: Date, to: Date) {
        windows.push({ from: from.getTime(), to: to.getTime() });
        if (windows.length === 1) throw new Error('visibility went away');
        return 0;
      },
    } as unknown as JobsService;
    const config = { durations: { reconcileIntervalMs: INTERVAL_MS, agentLostAfterMs: 0 } } as ApiConfig;
    const stop = startReconciler({ jobs, transitions, config, log: { warn: noop, info: noop } as unknown as Logger });
    while (windows.length < 3) await new Promise((r) => setTimeout(r, 5));
    stop();
    const now = Date.now();
    assert.equal(windows[1]!.from, windows[0]!.from, 'the failed window is read again');
    assert.equal(windows[2]!.from, windows[1]!.to, 'then the next one starts where it ended');
    assert.ok(
      windows.every((w) => w.to <= now - 120_000),
      'no run younger than two minutes is checked',
    );
    assert.ok(repairs >= 3, 'a failed check does not hold up the repair of rows behind closed runs');
  });
});
