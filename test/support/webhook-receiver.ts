import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from './http';
import { v0ok } from './v0';

export interface Received {
  headers: Record<string, string>;
  body: string;
  /** When it arrived (ms). */
  at: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  event: any;
  /** The status it was answered with. */
  answered?: number;
}

/** What the receiver does with a request: answer `status` after `delayMs`. */
export type Responder = (
  r: Received,
  all: Received[],
) => { status: number; delayMs?: number; headers?: Record<string, string>; body?: string };

/** A real HTTP receiver on 127.0.0.1 that records every request and answers as told. */
export class WebhookReceiver {
  readonly received: Received[] = [];
  respond: Responder = () => ({ status: 204 });
  private server?: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let event: unknown = null;
        try {
          event = JSON.parse(body);
        } catch {
          // kept as text
        }
        const r: Received = { headers: req.headers as Record<string, string>, body, at: Date.now(), event };
        this.received.push(r);
        const answer = this.respond(r, this.received);
        r.answered = answer.status;
        if (answer.delayMs) await sleep(answer.delayMs);
        if (!res.destroyed) res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Requests about one job, in arrival order. */
  of(jobId: string): Received[] {
    return this.received.filter((r) => r.event?.data?.job?.id === jobId);
  }

  async waitFor(done: (all: Received[]) => boolean, timeoutMs = 20_000, what = 'deliveries'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.received)) {
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${what}; received ${this.received.length}: ${this.received.map((r) => `${r.event?.type}:${r.event?.data?.job?.id}`).join(' ')}`,
        );
      await sleep(25);
    }
  }
}

/** The three signature headers of a request, as a verifier takes them. */
export const signed = (r: Received) => ({
  'webhook-id': r.headers['webhook-id'],
  'webhook-timestamp': r.headers['webhook-timestamp'],
  'webhook-signature': r.headers['webhook-signature'],
});

/** The endpoint's delivery log, oldest first. */
export async function deliveriesOf(token: string, hookId: string, baseUrl?: string) {
  const page = await v0ok('GET', `/webhooks/${hookId}/deliveries?pageSize=200`, { token, baseUrl });
  return [...page.items].reverse();
}

/** `get()` until `done` says so (an attempt is logged a moment after its receiver answered). */
export async function until<T>(
  what: string,
  get: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await sleep(50);
  }
}
