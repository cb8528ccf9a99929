import { AsyncResource } from 'node:async_hooks';

/** What the clock holds: when it is due, and its place in the heap (-1 when not held). */
export interface Timed {
  due: number;
  slot: number;
  /** Called once when its time has come, unless it was taken off first. */
  expire(): void;
}

/**
 * One Node timer for every waiting poll of an instance: a min-heap by due time, the timer armed
 * for the earliest. A Node Timeout of its own (the object, its arguments, its times and its async
 * context) is about 0.3 KiB held by each of thousands of waiting polls (see bench:fleet).
 */
export class WaitClock {
  private readonly heap: Timed[] = [];
  private timer?: NodeJS.Timeout;
  private armedFor = Infinity;
  // Armed in the context the clock was made in, never in the request's that happened to arm it:
  // an expiry belongs to no request, and must not carry another poll's request ID into its logs.
  private readonly setTimer = AsyncResource.bind((ms: number) => setTimeout(() => this.fire(), ms));

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.heap.length;
  }

  add(t: Timed, due: number): void {
    t.due = due;
    t.slot = this.heap.length;
    this.heap.push(t);
    this.up(t.slot);
    this.arm();
  }

  remove(t: Timed): void {
    if (this.take(t)) this.arm();
  }

  private take(t: Timed): boolean {
    const at = t.slot;
    if (at < 0 || this.heap[at] !== t) return false;
    t.slot = -1;
    const last = this.heap.pop()!;
    if (last !== t) {
      this.heap[at] = last;
      last.slot = at;
      this.down(at);
      this.up(last.slot);
    }
    return true;
  }

  private fire(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = this.now();
    while (this.heap.length > 0 && this.heap[0].due <= now) {
      const t = this.heap[0];
      this.take(t);
      t.expire();
    }
    this.arm();
  }

  private arm(): void {
    const head = this.heap[0];
    if (head?.due === this.armedFor && this.timer) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
    if (!head) return;
    this.armedFor = head.due;
    this.timer = this.setTimer(Math.max(0, head.due - this.now()));
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p].due <= h[i].due) break;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && h[l].due < h[m].due) m = l;
      if (r < h.length && h[r].due < h[m].due) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    const h = this.heap;
    const t = h[a];
    h[a] = h[b];
    h[b] = t;
    h[a].slot = a;
    h[b].slot = b;
  }
}
