import { NOTIFY } from '../db/channels';
import type { Notifier } from '../db/notifier';
import { WaitClock } from './wait-clock';
import { NONE, type Offer, type PollTicket, Waiter } from './poll-ticket';

export type { Awaiting, PollTicket } from './poll-ticket';

// The long polls waiting on this instance, by queue (a workspace's own agents, or a managed
// region). A queued job's NOTIFY names the job and its selector: it wakes one waiting poll whose
// labels match, the one that has waited longest, never the whole queue. A poll that took another
// job, or none, passes the offer on to the next matching poll while the job is still claimable.
// A drain's NOTIFY names its node and wakes that node's polls. When the LISTEN connection drops,
// every poll is woken, since what was notified meanwhile is lost.

/** How long past its wait a poll taken for a hand-off may be held for the run to start. */
export const HAND_OFF_HOLD_MS = 2000;

/** Whether an offered job is still there for another poll to claim. */
export type StillClaimable = (jobId: string) => Promise<boolean>;

/** A waiting poll a submit took to hand its job to directly (see PollWaiters.take). */
export interface HandOff {
  nodeId: string;
  /** Wakes the poll with its assignment; false when the poll stopped waiting meanwhile. */
  deliver(assignment: unknown): boolean;
  /** Nothing to hand after all: the poll claims once (it missed the offers made meanwhile) and waits on. */
  release(): void;
}

/** A queue's waiting polls, in waiting order, and its key. */
class Queue extends Set<Waiter> {
  constructor(readonly key: string) {
    super();
  }
}

/** Labels satisfy a selector when they hold each of its pairs (as `selector <@ labels` in SQL). */
function satisfies(labels: Record<string, string>, selector: Record<string, string> | null): boolean {
  // No array per call: a queue's whole line may be checked for one job.
  for (const k in selector) if (labels[k] !== selector[k]) return false;
  return true;
}

/** The NOTIFY payload of a queued job, and of a drain: `<queue> <job ID> <selector JSON>`, `<queue> node:<node ID>`. */
function parse(payload: string): { queue: string; target: string; selector: Record<string, string> | null } {
  const first = payload.indexOf(' ');
  if (first < 0) return { queue: payload, target: '', selector: null };
  const second = payload.indexOf(' ', first + 1);
  const queue = payload.slice(0, first);
  const target = second < 0 ? payload.slice(first + 1) : payload.slice(first + 1, second);
  let selector: Record<string, string> | null = null;
  if (second >= 0 && second < payload.length - 1) {
    try {
      selector = JSON.parse(payload.slice(second + 1));
    } catch {
      selector = null; // unknown: any poll may take it, the claim decides
    }
  }
  return { queue, target, selector };
}

export class PollWaiters {
  // Insertion order is waiting order: a poll that wakes goes to the back when it waits again.
  private readonly queues = new Map<string, Queue>();
  /** When each waiting poll's wait runs out. */
  readonly clock = new WaitClock();
  /** The instance is stopping: no poll waits any more (see close). */
  closed = false;

  constructor(
    notifier: Notifier,
    private readonly stillClaimable: StillClaimable,
  ) {
    for (const channel of [NOTIFY.jobQueued, NOTIFY.managedJobQueued])
      notifier.subscribe(channel, (p) => this.notified(channel, p));
    notifier.onReset(() => this.wakeAll());
  }

  /**
   * The instance is stopping: every waiting poll answers now, as if its wait had run out, and a
   * poll that comes to wait later answers at once, so its agent polls again elsewhere rather than
   * meeting a closed connection.
   */
  close(): void {
    this.closed = true;
    for (const set of this.queues.values()) for (const w of [...set]) w.end(false);
  }

  /** How many polls are registered (waiting or claiming). */
  get size(): number {
    let n = 0;
    for (const set of this.queues.values()) n += set.size;
    return n;
  }

  /**
   * Registers a poll before its first claim, so that a job queued while it claims still wakes it.
   * `queue` is `[channel, payload]` as queuedChannelOf gives it.
   */
  enter(
    [channel, scope]: [string, string],
    nodeId: string,
    labels: Record<string, string>,
    takesHandOffs = false,
  ): PollTicket {
    const key = `${channel}:${scope}`;
    // The queue's own key where it has one: not a copy of it held by every waiting poll.
    const waiter = new Waiter(this, this.queues.get(key)?.key ?? key, nodeId, labels, takesHandOffs);
    this.join(waiter);
    return waiter;
  }

  /** A waiter's own: its place in its queue's line. */
  join(waiter: Waiter) {
    let set = this.queues.get(waiter.queue);
    if (!set) this.queues.set(waiter.queue, (set = new Queue(waiter.queue)));
    set.add(waiter);
  }

  leave(waiter: Waiter) {
    const set = this.queues.get(waiter.queue);
    set?.delete(waiter);
    if (set?.size === 0) this.queues.delete(waiter.queue);
  }

  /**
   * The longest-waiting poll of `queue` that takes hand-offs and whose labels match `selector`,
   * taken out of its line (no offer reaches it) for a submit to hand its job to; none when every
   * matching poll is claiming or woken already.
   */
  take([channel, scope]: [string, string], selector: Record<string, string>): HandOff | undefined {
    if (this.closed) return undefined;
    const key = `${channel}:${scope}`;
    for (const w of this.queues.get(key) ?? []) {
      if (w.woken || !w.waiting || !w.takesHandOffs || !satisfies(w.labels, selector)) continue;
      this.leave(w);
      // The longest-waiting poll is the nearest its end: it must not run out while the run it is
      // handed starts (it would answer empty, and the job go round the queue to another poll).
      w.hold(HAND_OFF_HOLD_MS);
      return {
        nodeId: w.nodeId,
        deliver: (assignment) => {
          if (!w.waiting) return false;
          w.assignment = assignment;
          this.wakeOne(w);
          return true;
        },
        // Out of its line it missed whatever was offered meanwhile: it claims once before waiting on.
        release: () => {
          if (!w.waiting) return;
          this.join(w);
          this.wakeOne(w);
        },
      };
    }
    return undefined;
  }

  private notified(channel: string, payload: string) {
    const { queue, target, selector } = parse(payload);
    const key = `${channel}:${queue}`;
    if (target.startsWith('node:')) {
      const nodeId = target.slice('node:'.length);
      for (const w of this.queues.get(key) ?? []) if (w.nodeId === nodeId) this.wakeOne(w);
    } else if (target) {
      this.offer(key, { jobId: target, selector, tried: new Set() });
    } else {
      // A payload naming no job (an older instance's): every poll of the queue looks.
      for (const w of this.queues.get(key) ?? []) this.wakeOne(w);
    }
  }

  /** To the longest-waiting matching poll not already woken and not yet offered it; else nobody here. */
  private offer(queue: string, offer: Offer): boolean {
    for (const w of this.queues.get(queue) ?? []) {
      if (w.woken || offer.tried.has(w) || !satisfies(w.labels, offer.selector)) continue;
      offer.tried.add(w);
      if (w.offers === NONE) w.offers = [offer];
      else w.offers.push(offer);
      this.wakeOne(w);
      return true;
    }
    return false;
  }

  /** A waiter's own: an offer it did not take goes on to the next matching poll. */
  async passOn(offer: Offer, from: Waiter) {
    offer.tried.add(from);
    const queue = this.queues.get(from.queue);
    let candidate = false;
    for (const w of queue ?? []) {
      if (w.woken || offer.tried.has(w) || !satisfies(w.labels, offer.selector)) continue;
      candidate = true;
      break;
    }
    if (!candidate) return;
    // Only a job still there is worth another poll's claim.
    if (await this.stillClaimable(offer.jobId).catch(() => true)) this.offer(from.queue, offer);
  }

  private wakeOne(w: Waiter) {
    w.woken = true;
    w.end(true);
  }

  private wakeAll() {
    for (const set of this.queues.values()) for (const w of set) this.wakeOne(w);
  }
}
