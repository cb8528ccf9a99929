import type { Logger } from 'pino';
import { NOTIFY } from '../db/channels';
import type { Notifier } from '../db/notifier';
import { type JobState, isTerminal } from '../../workflows/definitions';
import type { LogEvent, LogPage, LogsService } from './service';

/** What a feed hands its followers: new events in seq order, each page exactly once. */
export interface FeedPage {
  /** The seq the page was read after. */
  after: number;
  events: LogEvent[];
}

export interface FeedFollower {
  /** The last seq this follower has; the feed sends only what comes after it. */
  position: number;
  page(page: FeedPage): void;
  /** The job is terminal and every line was sent. */
  end(job: { state: JobState; exitCode: number | null }): void;
  /** The feed cannot go on (its read failed): the follower should close, its client resumes. */
  fail(err: unknown): void;
}

/**
 * Recent pages kept so a follower that caught up a little behind the feed can join it without
 * another read of its own: about one replay page, per followed job (an instance following 1000
 * busy jobs holds about 1 GiB of them at most).
 */
const RECENT_BYTES = 1024 * 1024;

const sizeOf = (events: LogEvent[]) => events.reduce((n, e) => n + (e.kind === 'line' ? e.line.length + 64 : 96), 0);

/**
 * One reader per followed job in this API instance: whatever number of clients follow a job, its
 * new lines are read from PostgreSQL once per notification and handed to each of them; lines
 * pushed through this instance are handed over as stored, without being read back at all (the
 * notification names the last seq, so the feed then knows it has them). A follower first replays
 * what it is missing with reads of its own, then joins the feed. Followers are never waited on:
 * one that cannot keep up is the surface's to cut.
 */
export function createLogFeeds({ logs, notifier, log }: { logs: LogsService; notifier: Notifier; log: Logger }) {
  const feeds = new Map<string, Feed>();
  notifier.subscribe(NOTIFY.jobLogs, (payload) => {
    const [jobId, last] = payload.split(' ');
    feeds.get(jobId)?.storedUpTo(Number(last));
  });
  logs.onStored((stored) => feeds.get(stored.jobId)?.offer(stored.after, stored.events));

  class Feed {
    readonly followers = new Set<FeedFollower>();
    /** The last seq read; every follower is at or past it. */
    last: number;
    private recent: Array<FeedPage & { bytes: number }> = [];
    private recentBytes = 0;
    /** A read is under way (another may follow it: see `again`). */
    reading = false;
    private again = false;
    private ended: { state: JobState; exitCode: number | null } | undefined;
    private readonly unlisten: Array<() => void>;

    constructor(
      readonly jobId: string,
      from: number,
    ) {
      this.last = from;
      this.unlisten = [notifier.on(NOTIFY.jobState, jobId, () => this.read())];
    }

    /** Lines up to `seq` are stored (a notification from any instance); read them unless they are here already. */
    storedUpTo(seq: number): void {
      // NaN (a notification without a seq) reads.
      if (!(seq <= this.last)) this.read();
    }

    /** Lines a push through this instance stored: taken as they are when they follow on from the feed. */
    offer(after: number, events: LogEvent[]): void {
      if (after === this.last && !this.ended && this.followers.size > 0) this.publish({ after, events });
    }

    /** Whether a follower at `position` can be fed from here on: nothing between it and the feed is missing. */
    covers(position: number): boolean {
      return position >= (this.recent[0]?.after ?? this.last);
    }

    join(f: FeedFollower): void {
      for (const page of this.recent)
        if (page.events.length && page.events[page.events.length - 1].seq > f.position) f.page(page);
      if (this.ended) return f.end(this.ended);
      this.followers.add(f);
      // Lines may have landed between the follower's own last read and now.
      this.read();
    }

    leave(f: FeedFollower): void {
      this.followers.delete(f);
      if (this.followers.size === 0 && feeds.get(this.jobId) === this) {
        feeds.delete(this.jobId);
        for (const off of this.unlisten) off();
      }
    }

    /** Reads what is new; a notification during a read makes it read once more after. */
    private read(): void {
      if (this.reading) {
        this.again = true;
        return;
      }
      this.reading = true;
      void this.pump();
    }

    private async pump(): Promise<void> {
      try {
        do {
          this.again = false;
          if (this.followers.size === 0 || this.ended) break;
          let page: LogPage;
          do {
            const after = this.last;
            page = await logs.read(this.jobId, after);
            if (page.events.length > 0) this.publish({ after, events: page.events });
          } while (page.full);
          if (page.job && isTerminal(page.job.state)) {
            this.ended = page.job;
            for (const f of [...this.followers]) f.end(page.job);
          }
        } while (this.again);
      } catch (err) {
        log.warn({ err: String(err), jobId: this.jobId }, 'log feed read failed; its followers are closed to resume');
        for (const f of [...this.followers]) f.fail(err);
      }
      this.reading = false;
    }

    private publish(read: FeedPage): void {
      // A read that overlaps lines handed over meanwhile passes on only what is new.
      const page =
        read.after >= this.last ? read : { after: this.last, events: read.events.filter((e) => e.seq > this.last) };
      if (page.events.length === 0) return;
      this.last = page.events[page.events.length - 1].seq;
      const bytes = sizeOf(page.events);
      this.recent.push({ ...page, bytes });
      this.recentBytes += bytes;
      while (this.recent.length > 1 && this.recentBytes > RECENT_BYTES) this.recentBytes -= this.recent.shift()!.bytes;
      for (const f of [...this.followers]) f.page(page);
    }
  }

  return {
    /**
     * Joins `f` to the job's feed if nothing is missing between its position and the feed's
     * (made on first use); false when the follower must read on by itself first.
     */
    join(jobId: string, f: FeedFollower): (() => void) | false {
      let feed = feeds.get(jobId);
      if (!feed) {
        feed = new Feed(jobId, f.position);
        feeds.set(jobId, feed);
      }
      if (!feed.covers(f.position)) return false;
      feed.join(f);
      const joined = feed;
      return () => joined.leave(f);
    },

    /** Jobs followed on this instance, their followers, and how many feeds are reading now (for tests and metrics). */
    stats(): { feeds: number; followers: number; reading: number } {
      let followers = 0;
      let reading = 0;
      for (const feed of feeds.values()) {
        followers += feed.followers.size;
        if (feed.reading) reading++;
      }
      return { feeds: feeds.size, followers, reading };
    },
  };
}

export type LogFeeds = ReturnType<typeof createLogFeeds>;
