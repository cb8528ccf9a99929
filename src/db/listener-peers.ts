import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { NOTIFY } from './channels';

/** The application name of every instance's LISTEN connection: how instances count one another. */
export const LISTENER_NAME = 'compute-listener';

/**
 * The other LISTEN connections of an instance's database, as its own listener learns of them
 * (src/db/notifier.ts): counted by application name at each ping, and heard at once when another
 * instance announces itself on `NOTIFY.instances` (`hello <name> <token>`) as its listener comes
 * up. While none is known, what the instance offered in memory is kept, to be NOTIFYed after all
 * once one shows up: it may have been listening since the last count that found none.
 */
export class ListenerPeers {
  /** How many other listeners there are, as last counted or announced; undefined until counted on this connection. */
  private others: number | undefined;
  /** Announcements heard from other instances: a count answered while one arrived may predate it. */
  private announced = 0;
  private readonly token = randomUUID();
  /** What was offered in memory since the last count that found no other listener: [channel, payload, when]. */
  private offeredAlone: Array<[channel: string, payload: string, at: number]> = [];

  constructor(readonly name = LISTENER_NAME) {}

  /** True while the last count, and every announcement since, found no other listener. */
  get none(): boolean {
    return this.others === 0;
  }

  /** Its connection is down, or a new one is coming up: nothing is known until it counts again. */
  forget(): void {
    this.others = undefined;
  }

  /** Keeps what was offered in memory while none was known. */
  offered(channel: string, payload: string): void {
    this.offeredAlone.push([channel, payload, performance.now()]);
  }

  /** Says on `client`, a listener now up, that this instance listens. */
  async announce(client: pg.Client): Promise<void> {
    await client.query('SELECT pg_notify($1, $2)', [NOTIFY.instances, `hello ${this.name} ${this.token}`]);
  }

  /** Another instance's announcement: one more listener, so what was offered alone is NOTIFYed. */
  heard(client: pg.Client, payload: string): void {
    const [, name, from] = payload.split(' ');
    if (name !== this.name || from === this.token) return;
    this.announced += 1;
    if (this.others === 0) this.others = 1;
    this.notifyOffered(client);
  }

  /**
   * Counts the other LISTEN connections on this database: instances by their application name, and
   * by their last statement the listeners of earlier builds (a LISTEN, or their ping's `SELECT 1`),
   * which neither name themselves nor announce: a rolling upgrade never leaves their polls unwoken.
   */
  async count(client: pg.Client): Promise<void> {
    const heard = this.announced;
    const askedAt = performance.now();
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (application_name = $1
               OR (application_name NOT LIKE $2 AND (query = 'SELECT 1' OR query LIKE 'LISTEN %')))`,
      [this.name, `${LISTENER_NAME}%`],
    );
    // pg hands over a notification that came in during the query before its answer: an instance
    // announced meanwhile may have connected after the count was taken.
    this.others = this.announced === heard ? rows[0].n : Math.max(rows[0].n, 1);
    // A listener that comes up later missed nothing offered before this count was asked.
    if (this.others === 0) this.offeredAlone = this.offeredAlone.filter(([, , at]) => at >= askedAt);
    else this.notifyOffered(client);
  }

  /** NOTIFYs what was offered in memory while alone, now that another listener is known; kept if that fails. */
  private notifyOffered(client: pg.Client) {
    if (!this.offeredAlone.length) return;
    const offered = this.offeredAlone;
    this.offeredAlone = [];
    client
      .query('SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) AS t (c, p)', [
        offered.map(([channel]) => channel),
        offered.map(([, payload]) => payload),
      ])
      .catch(() => {
        // Sent at the next count that finds another listener, on this connection or the next.
        this.offeredAlone.unshift(...offered);
      });
  }
}
