import { AppError } from '../shared/errors';

/**
 * Who goes first when one API instance has more work than it should run at once.
 *
 * Progress (a hand-out to an agent, an agent's result) finishes jobs and never waits here.
 * Everything else takes turns in a lane of its own, weighed by what it asks of the instance:
 * changes (submits, cancels, retries: Temporal calls, one each) and log pushes (PostgreSQL rows,
 * one per line). A lane lets in at most its `max` at once while no progress is under way, and a
 * quarter of that while some is, or was in the last `quietMs`; work alone in its lane always gets
 * in (heavy work, below, once its lane's rest is over). A burst of submits or a job flooding its
 * log therefore fills an idle instance at full speed, and leaves most of a busy one to the agents
 * whose jobs it would otherwise hold back.
 *
 * While agents progress, bulk work is *heavy*: a change of a workspace whose own jobs do not
 * progress (a bulk submitter beside another workspace's working fleet), and a push of a job that
 * floods its log: past the busy lane's lines within `quietMs` (however it batches them), and from
 * then on while it goes on pushing, or waits its turn, within `quietMs` of its last push. Heavy
 * work goes in one at a time per lane, and the lane then rests from heavy work: after a change as
 * long as the change took (half of the lane's time), after a flood's push `floodRestFactor` times
 * as long as the push took (by default a tenth of the lane's time: a flood's rows cost PostgreSQL
 * a core while they are written, which the agents' work would otherwise have). Rests are capped at
 * half of `waitMs`. Other work passes heavy work that rests, and never waits for the rest.
 */
export function createTurns(o: {
  changesMax: number;
  pushLinesMax?: number;
  quietMs?: number;
  waitMs?: number;
  /** A flood's rest after each of its pushes, in multiples of how long the push took. */
  floodRestFactor?: number;
  retryAfterSeconds: number;
}) {
  const quietMs = o.quietMs ?? 1000;
  const waitMs = o.waitMs ?? 10_000;
  let progressing = 0;
  let progressedAt = 0;
  /** Per workspace: progress under way, and when it last ended (forgotten once quiet). */
  const progressingBy = new Map<string, number>();
  const progressedAtBy = new Map<string, number>();
  /** Per job: the lines let in since `since` (a window of quietMs), and until when it is a flood. */
  const pushedBy = new Map<string, { since: number; lines: number; floodUntil: number }>();
  let sweptAt = 0;
  const recentLines = (job: string) => {
    const w = pushedBy.get(job);
    return w && Date.now() - w.since < quietMs ? w.lines : 0;
  };
  /** Whether `job` flooded its log and has not been quiet for quietMs since (its rests aside). */
  const floods = (job: string) => Date.now() < (pushedBy.get(job)?.floodUntil ?? 0);
  /** A flood's push held by the rest: waiting its turn is not a quiet spell either. */
  const stillFlooding = (job: string) => {
    const w = pushedBy.get(job);
    if (w) w.floodUntil = Math.max(w.floodUntil, Math.max(Date.now(), pushes.restUntil) + quietMs);
  };

  interface Entry {
    weight: number;
    /** Whose it is: a workspace (changes) or a job (pushes). */
    owner: string;
    enter: (heavy: boolean) => void;
  }
  interface Lane {
    max: number;
    busyMax: number;
    /** The weight let in and not yet done. */
    running: number;
    waiting: Entry[];
    busyMessage: string;
    /** Whether an entry is heavy (asked only while busy). */
    heavy: (e: Entry, busyMax: number) => boolean;
    /** Heavy work running, and until when the lane rests from it. */
    heavyRunning: number;
    restUntil: number;
    /** The rest after heavy work, in multiples of how long it took. */
    restFactor: number;
  }
  const lane = (max: number, busyMessage: string, restFactor: number, heavy: Lane['heavy']): Lane => ({
    max,
    busyMax: Math.max(1, Math.floor(max / 4)),
    running: 0,
    waiting: [],
    busyMessage,
    heavy,
    heavyRunning: 0,
    restUntil: 0,
    restFactor,
  });
  const progresses = (owner: string) =>
    (progressingBy.get(owner) ?? 0) > 0 || Date.now() - (progressedAtBy.get(owner) ?? 0) < quietMs;
  const changes = lane(
    o.changesMax,
    'This API instance is busy; retry the change shortly',
    1,
    (e) => !progresses(e.owner),
  );
  const pushes = lane(
    o.pushLinesMax ?? 4000,
    'This API instance is busy; push the lines again shortly',
    o.floodRestFactor ?? 9,
    (e, busyMax) => floods(e.owner) || recentLines(e.owner) + e.weight > busyMax,
  );
  const lanes = [changes, pushes];

  const busy = () => progressing > 0 || Date.now() - progressedAt < quietMs;
  const isHeavy = (l: Lane, e: Entry) => busy() && l.heavy(e, l.busyMax);
  /** Whether `e` may go in now; `rest` when it is heavy work held by the lane's rest. */
  const fits = (l: Lane, e: Entry): 'yes' | 'rest' | 'full' => {
    if (isHeavy(l, e) && (l.heavyRunning > 0 || Date.now() < l.restUntil)) return 'rest';
    return l.running === 0 || l.running + e.weight <= (busy() ? l.busyMax : l.max) ? 'yes' : 'full';
  };
  let recheck: NodeJS.Timeout | undefined;
  /** `e` goes in; whether it went in as heavy work. */
  const enter = (l: Lane, e: Entry): boolean => {
    const heavy = isHeavy(l, e);
    l.running += e.weight;
    if (heavy) l.heavyRunning++;
    if (l === pushes) {
      const now = Date.now();
      const w = pushedBy.get(e.owner) ?? { since: now, lines: 0, floodUntil: 0 };
      pushedBy.set(e.owner, w);
      if (now - w.since < quietMs) w.lines += e.weight;
      else Object.assign(w, { since: now, lines: e.weight });
      if (w.lines > l.busyMax) w.floodUntil = Math.max(w.floodUntil, now + quietMs);
    }
    return heavy;
  };
  /**
   * Lets in as much waiting work as there is room for, in order: work that finds no room stops
   * the line (a big push is never passed by small ones), heavy work held by the rest is passed.
   * Looks again when the busy spell or a rest may be over.
   */
  const admit = () => {
    for (const l of lanes) {
      for (let i = 0; i < l.waiting.length;) {
        const e = l.waiting[i];
        const verdict = fits(l, e);
        if (verdict === 'full') break;
        if (verdict === 'rest') {
          if (l === pushes) stillFlooding(e.owner);
          i++;
        } else {
          l.waiting.splice(i, 1);
          e.enter(enter(l, e));
        }
      }
    }
    clearTimeout(recheck);
    recheck = undefined;
    const now = Date.now();
    if (now - sweptAt >= quietMs) {
      sweptAt = now;
      for (const [owner, at] of progressedAtBy) if (now - at >= quietMs) progressedAtBy.delete(owner);
      for (const [job, w] of pushedBy) if (now - w.since >= quietMs && now >= w.floodUntil) pushedBy.delete(job);
    }
    const waits = lanes.some((l) => l.waiting.length > 0);
    const rests = lanes.filter((l) => l.waiting.length > 0 && l.restUntil > now).map((l) => l.restUntil);
    const at = Math.min(progressing === 0 ? progressedAt + quietMs : Infinity, ...rests);
    if (waits && at !== Infinity) {
      recheck = setTimeout(admit, Math.max(1, at - now));
      recheck.unref();
    }
  };

  /** Runs `fn` in its turn on `l`; 503 when none came within `waitMs`. */
  async function inTurn<T>(l: Lane, weight: number, owner: string, fn: () => Promise<T>): Promise<T> {
    let heavy = false;
    const entry: Entry = { weight, owner, enter: () => undefined };
    if (l.waiting.length === 0 && fits(l, entry) === 'yes') heavy = enter(l, entry);
    else {
      const admitted = await new Promise<boolean>((resolve) => {
        entry.enter = (h) => {
          clearTimeout(timer);
          heavy = h;
          resolve(true);
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
    const startedAt = Date.now();
    try {
      return await fn();
    } finally {
      l.running -= weight;
      if (heavy) {
        l.heavyRunning--;
        // At most half of waitMs: work that waits out a rest is not refused for it.
        l.restUntil = Date.now() + Math.min((Date.now() - startedAt) * l.restFactor, waitMs / 2);
        // A flood stays one through its rest and for quietMs after: the rest is not a quiet spell.
        const w = l === pushes ? pushedBy.get(owner) : undefined;
        if (w) w.floodUntil = Math.max(w.floodUntil, l.restUntil + quietMs);
      }
      admit();
    }
  }

  return {
    /** Runs work that moves `owner`'s jobs on (its workspace): counted, never held back. */
    async progress<T>(owner: string, fn: () => Promise<T>): Promise<T> {
      progressing++;
      progressingBy.set(owner, (progressingBy.get(owner) ?? 0) + 1);
      progressedAt = Date.now();
      try {
        return await fn();
      } finally {
        progressing--;
        const left = progressingBy.get(owner)! - 1;
        if (left === 0) progressingBy.delete(owner);
        else progressingBy.set(owner, left);
        progressedAt = Date.now();
        progressedAtBy.set(owner, progressedAt);
        if (progressing === 0) admit();
      }
    },
    /** Runs a change (submit, cancel, retry) of `owner` (its workspace) in its turn; 503 when none came within `waitMs`. */
    change: <T>(owner: string, fn: () => Promise<T>) => inTurn(changes, 1, owner, fn),
    /** Stores a push of `lines` log lines of `job` in its turn; 503 when none came within `waitMs` (the agent keeps the lines and pushes them again). */
    push: <T>(job: string, lines: number, fn: () => Promise<T>) => inTurn(pushes, Math.max(1, lines), job, fn),
  };
}

export type Turns = ReturnType<typeof createTurns>;
