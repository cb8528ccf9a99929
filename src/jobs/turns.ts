import { AppError } from '../shared/errors';

/**
 * Who goes first when one API instance has more Temporal calls than it should send at once.
 *
 * Progress (a hand-out to an agent, an agent's result) finishes jobs and never waits here.
 * Changes (submits, cancels, retries) wait their turn: at most `changesMax` at once while no
 * progress is under way, and a quarter of that while some is, or was in the last `quietMs`. A
 * burst of submits therefore fills an idle instance at full speed, and leaves most of a busy one
 * to the agents whose jobs it would otherwise hold back.
 */
export function createTurns(o: { changesMax: number; quietMs?: number; waitMs?: number; retryAfterSeconds: number }) {
  const quietMs = o.quietMs ?? 1000;
  const waitMs = o.waitMs ?? 10_000;
  const busyMax = Math.max(1, Math.floor(o.changesMax / 4));
  let progressing = 0;
  let progressedAt = 0;
  let changing = 0;
  const waiting: Array<() => void> = [];
  let recheck: NodeJS.Timeout | undefined;

  const room = () => (progressing > 0 || Date.now() - progressedAt < quietMs ? busyMax : o.changesMax);
  /** Lets in as many waiting changes as there is room for; looks again when the busy spell may be over. */
  const admit = () => {
    while (waiting.length > 0 && changing < room()) {
      changing++;
      waiting.shift()!();
    }
    clearTimeout(recheck);
    recheck = undefined;
    if (waiting.length > 0 && progressing === 0) {
      recheck = setTimeout(admit, Math.max(1, progressedAt + quietMs - Date.now()));
      recheck.unref();
    }
  };

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

    /** Runs a change in its turn; 503 when none came within `waitMs`. */
    async change<T>(fn: () => Promise<T>): Promise<T> {
      if (changing < room() && waiting.length === 0) changing++;
      else {
        const admitted = await new Promise<boolean>((resolve) => {
          const enter = () => {
            clearTimeout(timer);
            resolve(true);
          };
          const timer = setTimeout(() => {
            const i = waiting.indexOf(enter);
            if (i >= 0) waiting.splice(i, 1);
            resolve(false);
          }, waitMs);
          waiting.push(enter);
          admit();
        });
        if (!admitted) throw new AppError('dependency.unavailable', 'This API instance is busy; retry the change shortly', undefined, o.retryAfterSeconds);
      }
      try {
        return await fn();
      } finally {
        changing--;
        admit();
      }
    },
  };
}

export type Turns = ReturnType<typeof createTurns>;
