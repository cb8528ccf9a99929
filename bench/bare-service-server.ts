import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { JobStateKey, JobTypeKey, LabelsKey, WorkspaceIdKey } from '../workflows/search-attributes';
import { bareServiceAssign, bareServiceResult } from './bare-service-workflow';
import { listenBare } from './bare-listen';

// The bare service of `npm run bench:dispatch`: the agent protocol of Surface A (submit, long
// poll, result) on a plain node:http server with a pg pool and the Temporal client, written to be
// as fast as we can make it. A submit starts the run (the job protocol's four search attributes)
// and then makes the row claimable, offering it to a waiting poll, in one statement; a poll claims
// each job in one statement (SKIP LOCKED) and sends its assign Update; a result sends its Update,
// then ends the row in one statement. Every statement is prepared by name. The Temporal client is
// on a Connection of its own, as our API's is when the worker runs apart (bench/bare-service-worker.ts
// runs the workflow). No framework, authentication, validation, codec, audit, metering or rate
// limiting. The paths, bodies and envelope are ours, so one load generator drives both.
//
// env: DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, PORT, POOL_MAX,
// WORKSPACE_ID, AGENT_LOST_AFTER_MS

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const CHANNEL = 'bare_job_queued';
const workspaceId = env('WORKSPACE_ID');
const taskQueue = env('TASK_QUEUE');
const lostAfterMs = Number(env('AGENT_LOST_AFTER_MS'));

const SCHEMA = `CREATE TABLE IF NOT EXISTS bare_jobs (
    id text PRIMARY KEY, workspace_id text NOT NULL, command text NOT NULL, state text NOT NULL DEFAULT 'QUEUED',
    agent_id text, lease_id text, exit_code int, created_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz, finished_at timestamptz);
  CREATE INDEX IF NOT EXISTS bare_jobs_queued ON bare_jobs (workspace_id, created_at, id) WHERE state = 'QUEUED'`;
const SUBMIT = {
  name: 'bare_submit',
  text: `WITH j AS (INSERT INTO bare_jobs (id, workspace_id, command) VALUES ($1, $2, $3) RETURNING id)
    SELECT pg_notify('${CHANNEL}', id) FROM j`,
};
const CLAIM = {
  name: 'bare_claim',
  text: `UPDATE bare_jobs SET state = 'RUNNING', agent_id = $2, lease_id = $3, started_at = now()
    WHERE id = (SELECT id FROM bare_jobs WHERE workspace_id = $1 AND state = 'QUEUED'
                ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING id, command`,
};
const FINISH = {
  name: 'bare_finish',
  text: `UPDATE bare_jobs SET state = $3, exit_code = $4, finished_at = now() WHERE id = $1 AND lease_id = $2`,
};
/** Only when an assign Update failed: the row is claimable again. */
const RELEASE = {
  name: 'bare_release',
  text: `UPDATE bare_jobs SET state = 'QUEUED', agent_id = NULL, lease_id = NULL WHERE id = $1 AND lease_id = $2`,
};

// Our pool's size and idle timeout (tarn's default, 30 s; pg-pool's own is 10 s).
const pool = new pg.Pool({
  connectionString: env('DATABASE_URL'),
  max: Number(process.env.POOL_MAX ?? 20),
  idleTimeoutMillis: 30_000,
});
const run = (q: { name: string; text: string }, values: unknown[]) => pool.query({ ...q, values });

/** Waiting polls, longest-waiting first; a NOTIFY wakes one not already woken. */
class Waiter {
  woken = false;
  private wake?: () => void;
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.woken) return resolve();
      const timer = setTimeout(() => this.wake?.(), Math.max(0, ms));
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }
  notify() {
    this.woken = true;
    this.wake?.();
  }
}
const waiting = new Set<Waiter>();
function offer() {
  for (const w of waiting) {
    if (w.woken) continue;
    w.notify();
    return;
  }
}

async function main() {
  const connection = await Connection.connect({ address: env('TEMPORAL_ADDRESS') });
  const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  const listener = new pg.Client({ connectionString: env('DATABASE_URL') });
  await listener.connect();
  await listener.query(SCHEMA);
  listener.on('notification', offer);
  await listener.query(`LISTEN ${CHANNEL}`);

  let nodes = 0;
  const handle = (id: string) => client.workflow.getHandle(id);

  /** Claims up to `maxJobs`, one statement each, with their assign Updates under way together. */
  async function claim(nodeId: string, maxJobs: number) {
    const assigned: Array<Promise<{ job_id: string; leaseId: string; command: string } | null>> = [];
    while (assigned.length < maxJobs) {
      const leaseId = randomUUID();
      const { rows } = await run(CLAIM, [workspaceId, nodeId, leaseId]);
      if (rows.length === 0) break;
      const { id, command } = rows[0] as { id: string; command: string };
      assigned.push(
        handle(id)
          .executeUpdate(bareServiceAssign, { args: [{ leaseId, agentId: nodeId }] })
          .then(
            () => ({ job_id: id, leaseId, command }),
            async () => {
              await run(RELEASE, [id, leaseId]).catch(() => undefined);
              return null;
            },
          ),
      );
    }
    return (await Promise.all(assigned)).filter((j) => j !== null);
  }

  const operations: Record<string, (b: Record<string, unknown>) => Promise<unknown>> = {
    '/api/compute/nodes/register': async () => ({ nodeId: `bare_node_${++nodes}`, apiKey: 'bare' }),
    '/api/compute/jobs/submit': async (b) => {
      const id = `job_${randomUUID()}`;
      await client.workflow.start('bareServiceJob', {
        workflowId: id,
        taskQueue,
        args: [lostAfterMs],
        typedSearchAttributes: [
          { key: JobStateKey, value: 'QUEUED' },
          { key: WorkspaceIdKey, value: workspaceId },
          { key: JobTypeKey, value: String(b.type) },
          { key: LabelsKey, value: [] },
        ],
      });
      await run(SUBMIT, [id, workspaceId, String(b.command)]);
      return { job_id: id };
    },
    '/api/compute/nodes/poll': async (b) => {
      const nodeId = String(b.nodeId);
      const deadline = Date.now() + Number(b.waitSeconds) * 1000;
      // In line before the first claim: a job queued while it claims still wakes it.
      const waiter = new Waiter();
      waiting.add(waiter);
      try {
        for (;;) {
          waiter.woken = false;
          const jobs = await claim(nodeId, Number(b.maxJobs));
          if (jobs.length > 0 || Date.now() >= deadline) return { jobs, cancel: [] };
          // Back of the line while it waits.
          waiting.delete(waiter);
          waiting.add(waiter);
          await waiter.wait(deadline - Date.now());
        }
      } finally {
        waiting.delete(waiter);
      }
    },
    '/api/compute/nodes/result': async (b) => {
      const exitCode = Number(b.exitCode);
      const id = String(b.job_id);
      const state = await handle(id).executeUpdate(bareServiceResult, {
        args: [{ leaseId: String(b.leaseId), exitCode }],
      });
      await run(FINISH, [id, b.leaseId, state, exitCode]);
      return {};
    },
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const op = operations[req.url ?? ''];
      if (!op || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      op(JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>)
        .then((payload) => {
          const text = JSON.stringify({ status: 'OK', payload });
          res
            .writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) })
            .end(text);
        })
        .catch((err) => res.writeHead(500).end(String(err)));
    });
  });
  listenBare(server, Number(env('PORT')), () => Promise.allSettled([listener.end(), pool.end(), connection.close()]));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
