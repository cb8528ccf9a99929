import { Client } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import pg from 'pg';
import { JobStateKey, JobTypeKey, LabelsKey, WorkspaceIdKey } from '../workflows/search-attributes';
import { bareAssignUpdate, bareJob, bareProtocolAssign, bareProtocolJob, bareProtocolResult } from './bare-workflow';
import { nowMs, runPool, steadyRate } from './stats';

// What one dispatch must at least pay, measured on the same Temporal dev server and PostgreSQL
// as the service: a Temporal start followed by an Update, and a PostgreSQL NOTIFY round trip.
// Two Temporal loops: `protocol` has the job protocol's shape (search attributes at the start,
// an assign Update that upserts state and agent, a result Update that upserts and completes), the
// fair baseline; `minimal` is a start and one Update, kept for context.

export type BareShape = 'protocol' | 'minimal';

const noop = () => undefined;
const silentSdkLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

export interface BareLatency {
  /** start sent → (assign) Update answered (accepted and completed in the same task: the handler is synchronous). */
  total: number[];
  /** the start RPC alone (eager: it returns with the first workflow task, which the worker then runs). */
  start: number[];
  /** the Update RPC alone: waits for the first task to complete, then the Update's own task. */
  update: number[];
  /** the measured workflows, for comparing histories */
  workflowIds: string[];
  eager: number;
}

export interface BareThroughput {
  jobs: number;
  inFlight: number;
  elapsedMs: number;
  perSecond: number;
  steadyPerSecond: number;
}

/**
 * A bare client + worker on their own task queue: the client shares the worker's NativeConnection
 * and asks for eager start, as the service's API does. Latency is taken in rounds, so the bench
 * can interleave them with the service's on the same machine at the same moments.
 */
export async function startBareTemporal(opts: { address: string; namespace: string }) {
  const taskQueue = 'bench-bare';
  const tag = Date.now().toString(36);
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./bare-workflow'),
    logger: silentSdkLogger,
  });
  const native = await NativeConnection.connect({ address: opts.address });
  const worker = await Worker.create({
    connection: native,
    namespace: opts.namespace,
    taskQueue,
    workflowBundle,
    stickyQueueScheduleToStartTimeout: '2s',
  });
  const running = worker.run();
  const client = new Client({ connection: native, namespace: opts.namespace });
  let counter = 0;
  const startOf = (shape: BareShape, id: string) =>
    shape === 'minimal'
      ? client.workflow.start(bareJob, { workflowId: id, taskQueue, requestEagerStart: true })
      : client.workflow.start(bareProtocolJob, {
          workflowId: id,
          taskQueue,
          requestEagerStart: true,
          typedSearchAttributes: [
            { key: JobStateKey, value: 'QUEUED' },
            { key: WorkspaceIdKey, value: 'ws_bench' },
            { key: JobTypeKey, value: 'COMMAND' },
            { key: LabelsKey, value: [] },
          ],
        });
  /** Start → assign answered is the latency; a protocol run then reports its result, a minimal one completes by itself. */
  const once = async (shape: BareShape, id: string) => {
    const t0 = nowMs();
    const handle = await startOf(shape, id);
    const t1 = nowMs();
    if (shape === 'minimal') await handle.executeUpdate(bareAssignUpdate, { args: ['lease'] });
    else await handle.executeUpdate(bareProtocolAssign, { args: [{ leaseId: 'lease', agentId: 'agent_bench' }] });
    const t2 = nowMs();
    if (shape === 'minimal') await handle.result();
    else await handle.executeUpdate(bareProtocolResult, { args: [{ leaseId: 'lease', exitCode: 0 }] });
    return { total: t2 - t0, start: t1 - t0, update: t2 - t1, eager: handle.eagerlyStarted };
  };
  return {
    async latency(iterations: number, shape: BareShape = 'protocol'): Promise<BareLatency> {
      const out: BareLatency = { total: [], start: [], update: [], workflowIds: [], eager: 0 };
      for (let i = 0; i < iterations; i++) {
        const id = `bare-${tag}-l${counter++}`;
        const r = await once(shape, id);
        out.total.push(r.total);
        out.start.push(r.start);
        out.update.push(r.update);
        out.workflowIds.push(id);
        if (r.eager) out.eager++;
      }
      return out;
    },
    async throughput(jobs: number, inFlight: number, shape: BareShape = 'protocol'): Promise<BareThroughput> {
      const doneAt: number[] = [];
      const elapsedMs = await runPool(jobs, inFlight, async (i) => {
        await once(shape, `bare-${tag}-${shape[0]}${i}`);
        doneAt.push(nowMs());
      });
      return { jobs, inFlight, elapsedMs, perSecond: (jobs / elapsedMs) * 1000, steadyPerSecond: steadyRate(doneAt) };
    },
    async stop() {
      worker.shutdown();
      await running.catch(noop);
      await native.close();
    },
  };
}

/**
 * One connection LISTENs; another runs BEGIN, INSERT into a scratch table, pg_notify, COMMIT (the
 * four round trips of the service's markStarted). Latency: BEGIN sent → notification received.
 */
export async function startBareNotify(databaseUrl: string) {
  const channel = 'bench_notify';
  const listener = new pg.Client({ connectionString: databaseUrl });
  const writer = new pg.Client({ connectionString: databaseUrl });
  const waiters = new Map<string, (at: number) => void>();
  listener.on('notification', (msg) => {
    const at = nowMs();
    const wake = waiters.get(msg.payload ?? '');
    waiters.delete(msg.payload ?? '');
    wake?.(at);
  });
  await listener.connect();
  await writer.connect();
  await listener.query(`LISTEN ${channel}`);
  await writer.query(
    'CREATE TABLE IF NOT EXISTS bench_notify_scratch (id text PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now())',
  );
  let counter = 0;
  const once = async (id: string) => {
    const arrived = new Promise<number>((resolve) => waiters.set(id, resolve));
    const t0 = nowMs();
    await writer.query('BEGIN');
    await writer.query('INSERT INTO bench_notify_scratch (id) VALUES ($1)', [id]);
    await writer.query('SELECT pg_notify($1, $2)', [channel, id]);
    await writer.query('COMMIT');
    return (await arrived) - t0;
  };
  return {
    async latency(iterations: number): Promise<number[]> {
      const samples: number[] = [];
      for (let i = 0; i < iterations; i++) samples.push(await once(`n${counter++}`));
      return samples;
    },
    async stop() {
      await writer.query('DROP TABLE IF EXISTS bench_notify_scratch').catch(noop);
      await listener.end().catch(noop);
      await writer.end().catch(noop);
    },
  };
}
