import http from 'node:http';
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { listenBare } from './bare-listen';

// The baseline of `npm run bench:api`: a bare node:http server with a pg pool that answers each
// measured operation with the one statement it needs, prepared by name as ours are, and nothing
// else: no framework, no authentication, no rate limit, no validation. A process of its own,
// like the API.
//
// env: DATABASE_URL, PORT, POOL_MAX, WORKSPACE_ID (the workspace the API key of the bench acts in)

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_MAX ?? 20) });
const workspaceId = process.env.WORKSPACE_ID!;

const operations: Record<string, (body: Record<string, unknown>) => Promise<unknown>> = {
  '/retrieve': async (b) => {
    const { rows } = await pool.query({
      name: 'get',
      text: 'SELECT * FROM jobs WHERE id = $1 AND workspace_id = $2 AND workflow_started',
      values: [b.job_id, workspaceId],
    });
    return rows[0];
  },
  '/list': async (b) => {
    const { rows } = await pool.query({
      name: 'list',
      text: 'SELECT * FROM jobs WHERE workspace_id = $1 AND workflow_started ORDER BY id DESC LIMIT $2',
      values: [workspaceId, Number(b.limit ?? 50) + 1],
    });
    return { jobs: rows.slice(0, 50) };
  },
  '/heartbeat': async (b) => {
    const { rows } = await pool.query({
      name: 'heartbeat',
      text: 'UPDATE agents SET last_heartbeat_at = now() WHERE id = $1 AND workspace_id = $2 RETURNING drain',
      values: [b.nodeId, workspaceId],
    });
    return { drain: rows[0].drain, cancel: [] };
  },
};

// The tail's attribution, as our API reports it on /metrics: loop delay and GC since the last read.
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
const gc = { ms: 0, count: 0, over10ms: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.ms += e.duration;
    gc.count++;
    if (e.duration >= 10) gc.over10ms++;
  }
}).observe({ entryTypes: ['gc'] });
const stats = () => {
  const out = {
    loop: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
    gc: { ...gc },
  };
  loop.reset();
  Object.assign(gc, { ms: 0, count: 0, over10ms: 0 });
  return JSON.stringify(out);
};

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(stats());
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const op = operations[req.url ?? ''];
    if (!op) {
      res.writeHead(404).end();
      return;
    }
    op(JSON.parse(Buffer.concat(chunks).toString()))
      .then((payload) => {
        const text = JSON.stringify({ status: 'OK', payload });
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
      })
      .catch((err) => res.writeHead(500).end(String(err)));
  });
});
listenBare(server, Number(process.env.PORT), () => pool.end());
