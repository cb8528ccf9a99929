import { AsyncResource } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';
import { NOTIFY } from './channels';
import { LISTENER_NAME, ListenerPeers } from './listener-peers';

/** The URL with its session named `name` (pg takes a name in the URL over one in its options). */
const named = (url: string, name: string): string => {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
};

/**
 * One LISTEN connection per process, fanned out in memory. Waiters take a ticket *before*
 * reading the database, so a notification that lands between the read and the wait still wakes
 * them: no dispatch ever waits for a poll interval.
 *
 * Caches that rely on notifications to invalidate (credentials) ask `live`: notifications can
 * be missed only while the connection is down, so such a cache is dropped when it goes and is
 * not used again until the connection is back (`onReset` fires at both moments). A connection
 * that hangs without closing (a silent network partition) is found by a ping every `pingMs`:
 * it stops counting as live once `2 x pingMs` pass without an answer, and is then replaced.
 *
 * Every NOTIFY wakes every LISTEN connection of the database, each reading the notification queue
 * in a transaction of its own. A change that only instances listen for (a queued job) need not be
 * NOTIFYed while this instance is `alone`: `offer` then hands it to this instance's subscribers in
 * memory. Whether another listener exists is learnt at each ping and from other instances'
 * announcements (src/db/listener-peers.ts).
 */
export class Notifier {
  private readonly emitter = new EventEmitter();
  private readonly channels = new EventEmitter();
  private readonly resets = new Set<() => void>();
  private client?: pg.Client;
  private closed = false;
  /** When the connection last answered a ping (or delivered a notification). */
  private heardAt = 0;
  private pinger?: NodeJS.Timeout;
  private readonly peers: ListenerPeers;

  constructor(
    private readonly url: string,
    private readonly log: Logger,
    private readonly pingMs = 5_000,
    /** The application name instances know one another by; a test gives its own (LISTENER_NAME-…) to stand apart. */
    name = LISTENER_NAME,
  ) {
    this.peers = new ListenerPeers(name);
    this.emitter.setMaxListeners(0);
    this.channels.setMaxListeners(0);
  }

  /** True while the LISTEN connection is up and answering: no notification can have been missed since `onReset` last fired. */
  get live(): boolean {
    return this.client !== undefined && Date.now() - this.heardAt < 2 * this.pingMs;
  }

  /** True while no other listener is known: a change only instances listen for may be `offer`ed in memory. */
  get alone(): boolean {
    return this.peers.none && this.live;
  }

  /**
   * A committed change only instances listen for (a queued job): handed to this instance's
   * subscribers as its NOTIFY would be, and kept to be NOTIFYed should another listener show up.
   * False when this instance is no longer alone (it heard of another since the change was
   * decided): the caller NOTIFYs it instead.
   */
  offer(channel: string, payload: string): boolean {
    if (!this.alone) return false;
    this.peers.offered(channel, payload);
    this.deliverOutside(channel, payload);
    return true;
  }

  /**
   * `deliver` in the async context this notifier was made in, as a NOTIFY arrives: a poll woken
   * by an offer carries none of the submit's request (its ID in logs, its trace).
   */
  private readonly deliverOutside = AsyncResource.bind((channel: string, payload: string) =>
    this.deliver(channel, payload),
  );

  private deliver(channel: string, payload: string): void {
    this.channels.emit(channel, payload);
    this.fire(`${channel}:${payload}`);
  }

  async start(): Promise<void> {
    this.peers.forget();
    // A connect that hangs (a partition) is given up like a ping that does not answer.
    const client = new pg.Client({
      connectionString: named(this.url, this.peers.name),
      connectionTimeoutMillis: 2 * this.pingMs,
      keepAlive: true,
    });
    client.on('notification', (msg) => {
      this.heardAt = Date.now();
      const payload = msg.payload ?? '';
      if (msg.channel === NOTIFY.instances) this.peers.heard(client, payload);
      else this.deliver(msg.channel, payload);
    });
    client.on('error', (err) => {
      this.log.warn({ err: err.message }, 'notifier connection lost; reconnecting');
      void this.reconnect(client);
    });
    await client.connect();
    for (const channel of Object.values(NOTIFY)) await client.query(`LISTEN ${channel}`);
    await this.peers.announce(client);
    await this.peers.count(client);
    this.client = client;
    this.heardAt = Date.now();
    this.reset();
    this.ping(client);
  }

  /** Asks the connection every pingMs; one that does not answer within 2 x pingMs is given up. */
  private ping(client: pg.Client) {
    clearTimeout(this.pinger);
    this.pinger = setTimeout(() => {
      if (this.client !== client) return;
      const overdue = setTimeout(() => {
        this.log.warn('notifier connection stopped answering; reconnecting');
        void this.reconnect(client);
      }, 2 * this.pingMs);
      this.peers.count(client).then(
        () => {
          clearTimeout(overdue);
          this.heardAt = Date.now();
          this.ping(client);
        },
        () => clearTimeout(overdue), // the connection's error handler reconnects
      );
    }, this.pingMs);
    this.pinger.unref();
  }

  private async reconnect(dead: pg.Client) {
    if (this.closed || this.client !== dead) return;
    this.client = undefined;
    this.peers.forget();
    clearTimeout(this.pinger);
    this.reset();
    // end() waits for a hung connection's answer: destroy its socket instead.
    (dead as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    dead.end().catch(() => undefined);
    // Wake everyone: whatever was notified while we were away must be re-read.
    for (const key of this.emitter.eventNames()) this.fire(String(key));
    for (let delay = 200; !this.closed; delay = Math.min(delay * 2, 5_000)) {
      try {
        await this.start();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private reset() {
    for (const fn of this.resets) fn();
  }

  private fire(key: string) {
    this.emitter.emit(key);
  }

  /** Every payload notified on `channel` from now on. */
  subscribe(channel: string, fn: (payload: string) => void): () => void {
    this.channels.on(channel, fn);
    return () => this.channels.off(channel, fn);
  }

  /** Called when the connection drops and again when it is back: what was learnt from notifications may be stale. */
  onReset(fn: () => void): () => void {
    this.resets.add(fn);
    return () => this.resets.delete(fn);
  }

  /**
   * Listens for each `[channel, payload]` from now on. `wait` resolves true on a notification received
   * since the ticket was taken, false on timeout or abort; `wait` or `dispose` must be called.
   */
  ticket(...watched: Array<[channel: string, payload: string]>) {
    const keys = watched.map(([channel, payload]) => `${channel}:${payload}`);
    let fired = false;
    let wake: (() => void) | undefined;
    const onFire = () => {
      fired = true;
      wake?.();
    };
    for (const key of keys) this.emitter.on(key, onFire);
    const dispose = () => keys.forEach((key) => this.emitter.off(key, onFire));
    const wait = (timeoutMs: number, signal?: AbortSignal): Promise<boolean> =>
      new Promise<boolean>((resolve) => {
        // Armed before anything can call done(), which clears it.
        const timer = setTimeout(() => done(), Math.max(0, timeoutMs));
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          dispose();
          resolve(fired);
        };
        if (fired || signal?.aborted) return done();
        wake = done;
        signal?.addEventListener('abort', done);
      });
    return { wait, dispose };
  }

  /** Listens for `[channel, payload]` until the returned function is called; for long-lived readers. */
  on(channel: string, payload: string, fn: () => void): () => void {
    const key = `${channel}:${payload}`;
    this.emitter.on(key, fn);
    return () => this.emitter.off(key, fn);
  }

  async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.pinger);
    const client = this.client;
    this.client = undefined;
    this.reset();
    await client?.end().catch(() => undefined);
  }
}
