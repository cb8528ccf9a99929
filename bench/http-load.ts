import http from 'node:http';
import { nowMs, sleep } from './stats';

// A load client for one HTTP operation: POST JSON over keep-alive connections.
// - closed loop: `connections` clients, each sends its next request when the last is answered;
//   the figure is the server's maximum throughput.
// - open loop: requests are due at a fixed rate whatever the server does, and latency is taken
//   from when each was due, so a server that stalls is charged for the requests that wait
//   behind the stall (no coordinated omission).

export interface Target {
  url: string;
  path: string;
  body: unknown;
  headers: Record<string, string>;
}

export interface LoadResult {
  requests: number;
  errors: number;
  /** The first unexpected answer, if any. */
  firstError?: string;
  elapsedMs: number;
  perSecond: number;
  latencies: number[];
}

function requester(target: Target, maxSockets: number) {
  const url = new URL(target.path, target.url);
  const body = Buffer.from(JSON.stringify(target.body));
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const headers = { ...target.headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length) };
  const send = () =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

const ok = (r: { status: number }) => r.status === 200;

export async function closedLoop(target: Target, o: { connections: number; durationMs: number }): Promise<LoadResult> {
  const { send, close } = requester(target, o.connections);
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const started = nowMs();
  const deadline = started + o.durationMs;
  const lane = async () => {
    while (nowMs() < deadline) {
      const t0 = nowMs();
      try {
        const r = await send();
        if (ok(r)) latencies.push(nowMs() - t0);
        else {
          errors++;
          firstError ??= `${r.status} ${r.text.slice(0, 200)}`;
        }
      } catch (err) {
        errors++;
        firstError ??= String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: o.connections }, lane));
  const elapsedMs = nowMs() - started;
  close();
  return {
    requests: latencies.length,
    errors,
    firstError,
    elapsedMs,
    perSecond: (latencies.length / elapsedMs) * 1000,
    latencies,
  };
}

export async function openLoop(
  target: Target,
  o: { rate: number; durationMs: number; maxConnections: number },
): Promise<LoadResult> {
  const { send, close } = requester(target, o.maxConnections);
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const total = Math.round((o.rate * o.durationMs) / 1000);
  const interval = 1000 / o.rate;
  const started = nowMs();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + i * interval;
    const wait = due - nowMs();
    // Timers are coarse: sleep only for whole milliseconds and send what is due in a burst.
    if (wait >= 1) await sleep(Math.floor(wait));
    pending.push(
      send().then(
        (r) => {
          if (ok(r)) latencies.push(nowMs() - due);
          else {
            errors++;
            firstError ??= `${r.status} ${r.text.slice(0, 200)}`;
          }
        },
        (err) => {
          errors++;
          firstError ??= String(err);
        },
      ),
    );
  }
  await Promise.all(pending);
  const elapsedMs = nowMs() - started;
  close();
  return {
    requests: latencies.length,
    errors,
    firstError,
    elapsedMs,
    perSecond: (latencies.length / elapsedMs) * 1000,
    latencies,
  };
}
