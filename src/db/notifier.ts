import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';
import { NOTIFY } from './channels';

/**
 * One LISTEN connection per process, fanned out in memory. Waiters take a ticket *before*
 * reading the database, so a notification that lands between the read and the wait still wakes
 * them: no dispatch ever waits for a poll interval.
 */
export class Notifier {
  private readonly emitter = new EventEmitter();
  private client?: pg.Client;
  private closed = false;

  constructor(private readonly url: string, private readonly log: Logger) {
    this.emitter.setMaxListeners(0);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (msg) => this.fire(`${msg.channel}:${msg.payload ?? ''}`));
    client.on('error', (err) => {
      this.log.warn({ err: err.message }, 'notifier connection lost; reconnecting');
      void this.reconnect(client);
    });
    await client.connect();
    for (const channel of Object.values(NOTIFY)) await client.query(`LISTEN ${channel}`);
    this.client = client;
  }

  private async reconnect(dead: pg.Client) {
    if (this.closed || this.client !== dead) return;
    this.client = undefined;
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

  private fire(key: string) {
    this.emitter.emit(key);
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

  async stop(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }
}
