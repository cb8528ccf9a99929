import type { Hangup } from '../shared/hangup';
import type { PollWaiters } from './poll-waiters';
import type { Timed } from './wait-clock';

// A long poll's place in its queue's line (src/agents/poll-waiters.ts keeps the lines): what it
// was offered, and its wait.

export interface Offer {
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

/** No offers: one shared empty list (a waiting poll holds two), never written to. */
export const NONE: Offer[] = Object.freeze([]) as unknown as Offer[];

// A waiting poll's methods live on the prototype, not in closures of its own, and its wait is no
// promise: every waiting poll holds one (see bench:fleet).
export class Waiter implements PollTicket, Timed {
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
    if (this.woken || signal?.aborted || this.home.closed) {
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

  /** Its wait runs at least `ms` more (a hand-off under way); no-op once it stopped waiting. */
  hold(ms: number): void {
    if (!this.then) return;
    const due = Math.max(this.due, Date.now() + ms);
    this.home.clock.remove(this);
    this.home.clock.add(this, due);
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
