import http from 'node:http';
import pg from 'pg';
import { listenBare } from './bare-listen';

// The idle baseline of `npm run bench:fleet`: a bare node:http server that does what an idle
// fleet asks of the API, as cheaply as its authors can make it. A poll is held in memory until
// its wait runs out and answered with no jobs; the heartbeats of each 20 ms window are stamped
// in one prepared statement, as ours are, and each answered once its stamp is written. No
// framework, authentication, rate limit, validation or stop list. A process of its own, compiled
// and started with the API's node flags.
//
// env: DATABASE_URL, PORT. GET /stats answers how many polls it holds.

const WINDOW_MS = 20;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const EMPTY = JSON.stringify({ status: 'OK', payload: { jobs: [], cancel: [] } });
const BEAT = JSON.stringify({ status: 'OK', payload: { drain: false, cancel: [] } });
let held = 0;

const answer = (res: http.ServerResponse, text: string) =>
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);

let beats: { nodeId: string; res: http.ServerResponse }[] = [];
function stamp(): void {
  const batch = beats;
  beats = [];
  pool
    .query({
      name: 'stamp',
      text: 'UPDATE agents SET last_heartbeat_at = now() WHERE id = ANY($1::text[])',
      values: [batch.map((b) => b.nodeId)],
    })
    .then(
      () => {
        for (const b of batch) answer(b.res, BEAT);
      },
      (err: Error) => {
        for (const b of batch) b.res.writeHead(500).end(String(err));
      },
    );
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') return answer(res, JSON.stringify({ held }));
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { nodeId: string; waitSeconds?: number };
    if (req.url === '/api/compute/nodes/poll') {
      held++;
      setTimeout(
        () => {
          held--;
          answer(res, EMPTY);
        },
        (body.waitSeconds ?? 30) * 1000,
      );
    } else if (req.url === '/api/compute/nodes/heartbeat') {
      if (beats.length === 0) setTimeout(stamp, WINDOW_MS);
      beats.push({ nodeId: body.nodeId, res });
    } else res.writeHead(404).end();
  });
});
listenBare(server, Number(process.env.PORT), () => pool.end());
