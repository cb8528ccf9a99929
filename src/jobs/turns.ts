import { AppError } from '../shared/errors';

/**
 * Who goes first when one API instance has more work than it should run at once.
 *
 * Progress (a hand-out to an agent, an agent's result) finishes jobs and never waits here.
 * Everything else takes turns in a lane of its own, weighed by what it asks of the instance:
 * changes (submits, cancels, retries: Temporal calls, one each) and log pushes (PostgreSQL rows,
 * one per line). A lane lets in at most its `max` at once while no progress is under way, and a
 * quarter of that while some is, or was in the last `quietMs`; work alone in its lane always gets
 * in. A burst of submits or a job flooding its log therefore fills an idle instance at full speed,
 * and leaves most of a busy one to the agents whose jobs it would otherwise hold back.
 */
export function createTurns(o: { changesMax: number; pushLinesMax?: number; quietMs?: number; waitMs?: number; retryAfterSeconds: number }) {
  const quietMs = o.quietMs ?? 1000;
  const waitMs = o.waitMs ?? 10_000;
  let progressing = 0;
  let progressedAt = 0;

  interface Lane {
    max: number;
    busyMax: number;
    /** The weight let in and not yet done. */
    running: number;
    waiting: Array<{ weight: number; enter: () => void }>;
    busyMessage: string;
  }
  const lane = (max: number, busyMessage: string): Lane => ({ max, busyMax: Math.max(1, Math.floor(max / 4)), running: 0, waiting: [], busyMessage });
  const changes = lane(o.changesMax, 'This API instance is busy; retry the change shortly');
  const pushes = lane(o.pushLinesMax ?? 4000, 'This API instance is busy; push the lines again shortly');
  const lanes = [changes, pushes];

  const busy = () => progressing > 0 || Date.now() - progressedAt < quietMs;
  const fits = (l: Lane, weight: number) => l.running === 0 || l.running + weight <= (busy() ? l.busyMax : l.max);
  let recheck: NodeJS.Timeout | undefined;
  /** Lets in as much waiting work as there is room for, in order; looks again when the busy spell may be over. */
  const admit = () => {
    for (const l of lanes) {
      while (l.waiting.length > 0 && fits(l, l.waiting[0].weight)) {
        const next = l.waiting.shift()!;
        l.running += next.weight;
        next.enter();
      }
    }
    clearTimeout(recheck);
    recheck = undefined;
    if (progressing === 0 && lanes.some((l) => l.waiting.length > 0)) {
      recheck = setTimeout(admit, Math.max(1, progressedAt + quietMs - Date.now()));
      recheck.unref();
    }
  };

  /** Runs `fn` in its turn on `l`; 503 when none came within `waitMs`. */
  async function inTurn<T>(l: Lane, weight: number, fn: () => Promise<T>): Promise<T> {
    if (l.waiting.length === 0 && fits(l, weight)) l.running += weight;
    else {
      const admitted = await new Promise<boolean>((resolve) => {
        const entry = {
          weight,
          enter: () => {
            clearTimeout(timer);
            resolve(true);
          },
        };
        const timer = setTimeout(() => {
          const i = l.waiting.indexOf(entry);
          if (i >= 0) l.waiting.splice(i, 1);
          resolve(false);
          admit(); // what waited behind it may fit now
        }, waitMs);
        l.waiting.push(entry);
        admit();
      });
      if (!admitted) throw new AppError('dependency.unavailable', l.busyMessage, undefined, o.retryAfterSeconds);
    }
    try {
      return await fn();
    } finally {
      l.running -= weight;
      admit();
    }
  }

  return {
    /** Runs work that moves jobs on: counted, never held back. */
    async progress<T>(fn: () => Promise<T>): Promise<T> {
      progressing++;
      progressedAt = Date.now();
      try {
        return await fn();
      } finally {
        progressing--;
        progressedAt = Date.now();
        if (progressing === 0) admit();
      }
    },
    /** Runs a change (submit, cancel, retry) in its turn; 503 when none came within `waitMs`. */
    change: <T>(fn: () => Promise<T>) => inTurn(changes, 1, fn),
    /** Stores a push of `lines` log lines in its turn; 503 when none came within `waitMs` (the agent keeps the lines and pushes them again). */
    push: <T>(lines: number, fn: () => Promise<T>) => inTurn(pushes, Math.max(1, lines), fn),
  };
}

export type Turns = ReturnType<typeof createTurns>;
