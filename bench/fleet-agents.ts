import http from 'node:http';
import type { Assigned, Node } from './api';
import { nowMs, sleep } from './stats';

// The agents of `npm run bench:fleet`, a process of their own (started by bench/fleet-scale.ts):
// each keeps a poll waiting and heartbeats every 30 s, as a real agent does, and reports each job
// it gets at once. Real agents are on machines of their own; here they share the two cores with
// the service, so they are kept cheap: node:http over keep-alive connections (not fetch, which
// costs several times the CPU a request), in a process whose event loop does nothing else, so a
// job's arrival is noted when it arrives rather than when the bench's own loop gets to it.
// Each job is announced to the parent as `{ arrived, at }` when it arrives and `{ reported, at }`
// once its result is answered (or refused), `at` on the shared wall clock (nowMs).

export interface FleetAgent extends Node {
  slot: number;
}

export type FleetCall =
  /** The fleet: which API, which agents. */
  | { op: 'agents'; url: string; agents: FleetAgent[] }
  /** Starts the poll loops of agents [from, to). */
  | { op: 'poll'; from: number; to: number }
  /** Starts every agent's heartbeats. */
  | { op: 'beat' }
  /** Counts so far. */
  | { op: 'count' }
  /** Ends the loops; answered once their polls have come back (at most 35 s). */
  | { op: 'stop' };
export type FleetAnswer = { id: number; error?: string; beats: number; refused: number };

let url = new URL('http://localhost');
let agents: FleetAgent[] = [];
let running = true;
let beats = 0;
let refused = 0;
const loops: Promise<void>[] = [];
const connections = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 100_000 });

/**
 * The headers the reference agent's fetch sends besides its key and length: the API holds each
 * waiting request's header strings, so the heap per poll is weighed with a real agent's.
 */
const FETCH_HEADERS = {
  'Content-Type': 'application/json',
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

/** POSTs JSON to Surface A and returns its payload; anything but 200 OK rejects. */
function call<T>(path: string, body: unknown, key: string): Promise<T> {
  const bytes = Buffer.from(JSON.stringify(body));
  return new Promise<T>((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: `/api${path}`,
        method: 'POST',
        agent: connections,
        headers: { ...FETCH_HEADERS, 'Content-Length': bytes.length, 'X-API-Key': key },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode !== 200) return reject(new Error(`${path} -> ${res.statusCode} ${text}`));
          const parsed = JSON.parse(text) as { status: string; payload: T };
          if (parsed.status !== 'OK') return reject(new Error(`${path} -> ${text}`));
          resolve(parsed.payload);
        });
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

async function pollLoop(a: FleetAgent) {
  // The first poll's wait is spread over 30 s, so the fleet's renewals are spread as a real one's are.
  for (let wait = 1 + Math.floor(Math.random() * 30); running; wait = 30) {
    const jobs = await call<{ jobs: Assigned[] }>(
      '/compute/nodes/poll',
      { nodeId: a.nodeId, maxJobs: 1, waitSeconds: wait },
      a.nodeKey,
    ).then(
      (p) => p.jobs,
      async () => (await sleep(1000), [] as Assigned[]),
    );
    for (const job of jobs) {
      process.send!({ arrived: job.job_id, at: nowMs() });
      // A result the API is too loaded to take (408 past its request deadline) is counted, not fatal.
      await call(
        '/compute/nodes/result',
        { nodeId: a.nodeId, job_id: job.job_id, leaseId: job.leaseId, exitCode: 0, runtimeMs: 1 },
        a.nodeKey,
      ).catch(() => refused++);
      process.send!({ reported: job.job_id, at: nowMs() });
    }
  }
}

async function beatLoop(a: FleetAgent) {
  await sleep(Math.random() * 30_000);
  while (running) {
    await call('/compute/nodes/heartbeat', { nodeId: a.nodeId, runningJobs: [] }, a.nodeKey).then(
      () => beats++,
      () => undefined,
    );
    await sleep(30_000);
  }
}

async function handle(request: FleetCall): Promise<void> {
  switch (request.op) {
    case 'agents':
      url = new URL(request.url);
      agents = request.agents;
      return;
    case 'poll':
      for (const a of agents.slice(request.from, request.to)) loops.push(pollLoop(a));
      return;
    case 'beat':
      for (const a of agents) void beatLoop(a);
      return;
    case 'count':
      return;
    case 'stop':
      running = false;
      await Promise.race([Promise.all(loops), sleep(35_000)]);
  }
}

process.on('message', (request: FleetCall & { id: number }) => {
  handle(request).then(
    () => process.send!({ id: request.id, beats, refused }),
    (err: Error) => process.send!({ id: request.id, beats, refused, error: err.stack ?? err.message }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
