import { NOTIFY } from '../db/channels';
import type { Notifier } from '../db/notifier';
import type { Hangup } from '../shared/hangup';
import { type Timed, WaitClock } from './wait-clock';

// The long polls waiting on this instance, by queue (a workspace's own agents, or a managed
// region). A queued job's NOTIFY names the job and its selector: it wakes one waiting poll whose
// labels match, the one that has waited longest, never the whole queue. A poll that took another
// job, or none, passes the offer on to the next matching poll while the job is still claimable.
// A drain's NOTIFY names its node and wakes that node's polls. When the LISTEN connection drops,
// every poll is woken, since what was notified meanwhile is lost.

/** Whether an offered job is still there for another poll to claim. */
export type StillClaimable = (jobId: string) => Promise<boolean>;

interface Offer {
  jobId: string;
  selector: Record<string, string> | null;
  /** Polls that had it already: it goes to each at most once. */
  tried: Set<Waiter>;
}

/** What a poll holds while registered: its place in the line and what it has been offered. */
export interface PollTicket {
  /** Its queue: `<channel>:<scope>` of queuedChannelOf. */
  readonly queue: string;
  /** Waits until woken (true) or until `timeoutMs` or an abort (false). */
  wait(timeoutMs: number, signal?: Hangup): Promise<boolean>;
  /** `wait` without a promise: `then.awake(woken)` is called once, in a microtask. */
  park(timeoutMs: number, signal: Hangup | undefined, then: Awaiting): void;
  /** The poll's labels changed (re-read after a wait). */
  relabel(labels: Record<string, string>, takesHandOffs?: boolean): void;
  /** After a round of claims: offers of jobs it did not take go on to the next matching poll. */
  settle(taken: string[]): Promise<void>;
  /** The poll is done: whatever it was offered and did not settle goes on. */
  dispose(): void;
  /** A job a submit handed to this poll while it waited (see take), once: then it answers with it. */
  handed(): unknown;
}

/** Who is told how a parked wait ended (PollTicket.park). */
export interface Awaiting {
  awake(woken: boolean): void;
}

/** A waiting poll a submit took to hand its job to directly (see PollWaiters.take). */
export interface HandOff {
  nodeId: string;
  /** Wakes the poll with its assignment; false when the poll stopped waiting meanwhile. */
  deliver(assignment: unknown): boolean;
  /** Nothing to hand after all: the poll claims once (it missed the offers made meanwhile) and waits on. */
  release(): void;
}

/** No offers: one shared empty list (a waiting poll holds two), never written to. */
const NONE: Offer[] = Object.freeze([]) as unknown as Offer[];

// A waiting poll's methods live on the prototype, not in closures of its own, and its wait is no
// promise: every waiting poll holds one (see bench:fleet).
class Waiter implements PollTicket, Timed {
  /** Offers received since the poll last woke; the round's are what it is settling. */
  offers: Offer[] = NONE;
  round: Offer[] = NONE;
  woken = false;
  /** What a submit handed it (see PollWaiters.take). */
  assignment?: unknown;
  /** Set while it waits. */
  private then?: Awaiting;
  private signal?: Hangup;
  /** When its wait runs out, and its place on its instance's clock (src/agents/wait-clock.ts). */
  due = 0;
  slot = -1;
  constructor(
    private readonly home: PollWaiters,
    readonly queue: string,
    readonly nodeId: string,
    public labels: Record<string, string>,
    /** Whether a submit may hand it a job directly: its node takes any job its labels match. */
    public takesHandOffs: boolean,
  ) {}

  get waiting(): boolean {
    return this.then !== undefined;
  }

  wait(timeoutMs: number, signal?: Hangup): Promise<boolean> {
    return new Promise<boolean>((resolve) => this.park(timeoutMs, signal, { awake: resolve }));
  }

  park(timeoutMs: number, signal: Hangup | undefined, then: Awaiting): void {
    if (this.woken || signal?.aborted) {
      const woken = this.woken;
      this.reset();
      return void queueMicrotask(() => then.awake(woken));
    }
    this.then = then;
    this.home.clock.add(this, Date.now() + Math.max(0, timeoutMs));
    if (signal) {
      this.signal = signal;
      signal.addEventListener('abort', this);
    }
    // Back of the line: the polls that waited longest are offered jobs first.
    this.home.leave(this);
    this.home.join(this);
  }

  /** Woken, or its time or its caller gone: the wait ends, once. */
  end(woken: boolean): void {
    const then = this.then;
    if (!then) return;
    this.home.clock.remove(this);
    this.signal?.removeEventListener('abort', this);
    this.then = this.signal = undefined;
    this.reset();
    // As a promise's reaction would: whoever woke it (a loop over a queue's polls) finishes first.
    queueMicrotask(() => then.awake(woken));
  }

  expire(): void {
    this.end(false);
  }

  /** Its caller hung up (the signal's listener): the wait ends as it found it. */
  handleEvent(): void {
    this.end(false);
  }

  private reset() {
    this.woken = false;
    this.round = this.offers;
    this.offers = NONE;
  }

  relabel(labels: Record<string, string>, takesHandOffs = this.takesHandOffs): void {
    this.labels = labels;
    this.takesHandOffs = takesHandOffs;
  }

  handed(): unknown {
    const a = this.assignment;
    this.assignment = undefined;
    return a;
  }

  async settle(taken: string[]): Promise<void> {
    const round = this.round;
    this.round = NONE;
    await Promise.all(round.filter((o) => !taken.includes(o.jobId)).map((o) => this.home.passOn(o, this)));
  }

  dispose(): void {
    this.home.leave(this);
    for (const offer of [...this.round, ...this.offers]) void this.home.passOn(offer, this);
    this.round = this.offers = NONE;
  }
}

/** A queue's waiting polls, in waiting order, and its key. */
class Queue extends Set<Waiter> {
  constructor(readonly key: string) {
    super();
  }
}

/** Labels satisfy a selector when they hold each of its pairs (as `selector <@ labels` in SQL). */
const satisfies = (labels: Record<string, string>, selector: Record<string, string> | null) =>
  selector === null || Object.entries(selector).every(([k, v]) => labels[k] === v);

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

  constructor(
    notifier: Notifier,
    private readonly stillClaimable: StillClaimable,
  ) {
    for (const channel of [NOTIFY.jobQueued, NOTIFY.managedJobQueued])
      notifier.subscribe(channel, (p) => this.notified(channel, p));
    notifier.onReset(() => this.wakeAll());
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
    const key = `${channel}:${scope}`;
    for (const w of this.queues.get(key) ?? []) {
      if (w.woken || !w.waiting || !w.takesHandOffs || !satisfies(w.labels, selector)) continue;
      this.leave(w);
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
    const candidate = [...(queue ?? [])].some(
      (w) => !w.woken && !offer.tried.has(w) && satisfies(w.labels, offer.selector),
    );
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
