import { NOTIFY } from '../db/channels';
import type { Notifier } from '../db/notifier';

// An idle fleet renews its polls every 30 s, and each renewal's claim finds nothing: with 10 000
// agents that is hundreds of empty claims a second. A job becomes claimable by a write that
// notifies its queue (a submit, a requeue, a backoff's end), and every instance hears every
// queue's notifications. So a renewed poll whose node's last claim on this instance found nothing,
// with nothing notified on its queue since that claim began and the node unchanged, would find
// nothing again and need not claim. A reservation that runs out after a crashed claim is freed and
// notified by the reconciler within seconds (transitions.releaseExpiredReservations); whatever
// else might free a row without a notification is bounded: no node goes longer than `maxSkipMs`
// without a claim.
// Each empty claim skips for a random share of that, between three quarters and all of it, so a
// fleet whose claims fell together (every agent restarted at once) does not claim together again.
// Such a poll does not read its node's row either: it claims nothing, and what changes a node
// (a drain, a removal, room freed by a job's end) notifies the node by name, which wakes its poll
// to read the row afresh.

/** How a node stood at its empty claim: what it could take. Any change means it claims again. */
export interface ClaimShape {
  queue: string;
  /** Labels and free room, as the claim used them. */
  shape: string;
}

interface EmptyClaim<Node> {
  /** When the claim began (this process's monotonic clock, ms). */
  at: number;
  /** Until when a claim may be skipped for it. */
  until: number;
  queue: string;
  shape: string;
  /** The node's row as the claim read it, and what the node's jobs left free. */
  node: Node;
}

export class EmptyClaims<Node = unknown> {
  private readonly notified = new Map<string, number>();
  /** Nodes named by a notification (a drain, a removal, room freed), and when. */
  private readonly nodeNotified = new Map<string, number>();
  private readonly empty = new Map<string, EmptyClaim<Node>>();
  /** Since when the LISTEN connection has heard everything: a reconnect may have lost notifications. */
  private listeningSince: number;
  private sweepAt = 1024;

  constructor(
    private readonly maxSkipMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly random: () => number = Math.random,
  ) {
    this.listeningSince = now();
  }

  /** Hears the queues' notifications (the ones that wake polls) and the listener's reconnects. */
  listen(notifier: Notifier): this {
    for (const channel of [NOTIFY.jobQueued, NOTIFY.managedJobQueued])
      notifier.subscribe(channel, (payload) => {
        const [scope, target = ''] = payload.split(' ', 2);
        if (target.startsWith('node:')) this.nodeChanged(target.slice('node:'.length));
        else this.queued(`${channel}:${scope}`);
      });
    notifier.onReset(() => this.reset());
    return this;
  }

  /** Something on `queue` may have become claimable. */
  queued(queue: string): void {
    this.notified.set(queue, this.now());
  }

  /** The node changed: its next poll reads its row and claims. */
  nodeChanged(nodeId: string): void {
    this.nodeNotified.set(nodeId, this.now());
  }

  /** Notifications may have been lost: every node claims again. */
  reset(): void {
    this.listeningSince = this.now();
    this.notified.clear();
    this.nodeNotified.clear();
    this.empty.clear();
  }

  /** The time a claim begins, to record with its outcome. */
  started(): number {
    return this.now();
  }

  /** The node's claim begun at `at` took nothing, with every claimable row of its queue in view. */
  foundNothing(nodeId: string, at: number, claim: ClaimShape, node: Node): void {
    if (this.maxSkipMs <= 0) return;
    // Every field named, not spread: a spread builds the entry with its fields out of line, 40
    // bytes more for each of thousands of idle nodes.
    const until = at + this.maxSkipMs * (0.75 + this.random() / 4);
    this.empty.set(nodeId, { at, until, queue: claim.queue, shape: claim.shape, node });
    if (this.empty.size >= this.sweepAt) this.sweep();
  }

  /** The node took a job, or its claim could not see its whole queue: its next poll claims. */
  forget(nodeId: string): void {
    this.empty.delete(nodeId);
  }

  /** Whether a claim now would find what the node's last one found: nothing. */
  wouldFindNothing(nodeId: string, claim: ClaimShape): boolean {
    return this.idle(nodeId, claim) !== undefined;
  }

  /**
   * The node as its last claim found it, while a claim now would find nothing and nothing
   * changed the node since; `claim` when the caller read the node afresh, to compare.
   */
  idle(nodeId: string, claim?: ClaimShape): Node | undefined {
    const last = this.empty.get(nodeId);
    if (!last) return undefined;
    const fresh =
      (!claim || (last.queue === claim.queue && last.shape === claim.shape)) &&
      last.at >= this.listeningSince &&
      this.now() < last.until &&
      (this.notified.get(last.queue) ?? -Infinity) < last.at &&
      (this.nodeNotified.get(nodeId) ?? -Infinity) < last.at;
    if (!fresh) this.empty.delete(nodeId);
    return fresh ? last.node : undefined;
  }

  /** Drops what can no longer let a claim be skipped, so nodes that left are not kept. */
  private sweep(): void {
    const horizon = this.now() - this.maxSkipMs;
    for (const [node, e] of this.empty) if (e.at <= horizon) this.empty.delete(node);
    for (const [queue, at] of this.notified) if (at <= horizon) this.notified.delete(queue);
    for (const [node, at] of this.nodeNotified) if (at <= horizon) this.nodeNotified.delete(node);
    this.sweepAt = Math.max(1024, this.empty.size * 2);
  }
}
