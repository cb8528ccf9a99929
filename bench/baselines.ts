import { Client } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import pg from 'pg';
import { bareAssignUpdate, bareJob } from './bare-workflow';
import { type Summary, nowMs, runPool, steadyRate, summarize } from './stats';

// What one dispatch must at least pay, measured on the same Temporal dev server and PostgreSQL
// as the service: a Temporal start followed by an Update, and a PostgreSQL NOTIFY round trip.

const noop = () => undefined;
const silentSdkLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

export interface BareTemporalResult {
  /** start sent → Update answered (accepted and completed in the same task: the handler is synchronous). */
  latency: Summary;
  /** the start RPC alone (eager: it returns with the first workflow task, which the worker then runs). */
  start: Summary;
  /** the Update RPC alone: waits for the first task to complete, then the Update's own task. */
  update: Summary;
  /** the measured workflows, for comparing histories */
  latencyWorkflowIds: string[];
  eagerShare: number;
  /** CPU and pool use during the throughput run */
  load: string[];
  throughput: { jobs: number; inFlight: number; elapsedMs: number; perSecond: number; steadyPerSecond: number };
}

/**
 * A bare client + worker on their own task queue: the client shares the worker's NativeConnection
 * and asks for eager start, as the service's API does.
 */
export async function bareTemporal(opts: {
  address: string;
  namespace: string;
  warmup: number;
  iterations: number;
  throughputJobs: number;
  inFlight: number;
  /** Watches the machine during the throughput run; its lines land in the result. */
  watch?: () => { stop(jobs?: number): string[] };
}): Promise<BareTemporalResult> {
  const taskQueue = 'bench-bare';
  const tag = Date.now().toString(36);
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('./bare-workflow'), logger: silentSdkLogger });
  const native = await NativeConnection.connect({ address: opts.address });
  try {
    const worker = await Worker.create({ connection: native, namespace: opts.namespace, taskQueue, workflowBundle, stickyQueueScheduleToStartTimeout: '2s' });
    const running = worker.run();
    try {
      const client = new Client({ connection: native, namespace: opts.namespace });
      let eager = 0;
      const once = async (id: string) => {
        const t0 = nowMs();
        const handle = await client.workflow.start(bareJob, { workflowId: id, taskQueue, requestEagerStart: true });
        const t1 = nowMs();
        await handle.executeUpdate(bareAssignUpdate, { args: ['lease'] });
        const t2 = nowMs();
        if (handle.eagerlyStarted) eager++;
        await handle.result();
        return { total: t2 - t0, start: t1 - t0, update: t2 - t1 };
      };
      for (let i = 0; i < opts.warmup; i++) await once(`bare-${tag}-w${i}`);
      eager = 0;
      const total: number[] = [];
      const start: number[] = [];
      const update: number[] = [];
      for (let i = 0; i < opts.iterations; i++) {
        const r = await once(`bare-${tag}-l${i}`);
        total.push(r.total);
        start.push(r.start);
        update.push(r.update);
      }
      const eagerShare = eager / opts.iterations;
      const doneAt: number[] = [];
      const watcher = opts.watch?.();
      const elapsedMs = await runPool(opts.throughputJobs, opts.inFlight, async (i) => {
        await once(`bare-${tag}-t${i}`);
        doneAt.push(nowMs());
      });
      const load = watcher?.stop(opts.throughputJobs) ?? [];
      return {
        latency: summarize(total),
        start: summarize(start),
        update: summarize(update),
        eagerShare,
        latencyWorkflowIds: Array.from({ length: opts.iterations }, (_, i) => `bare-${tag}-l${i}`),
        throughput: {
          jobs: opts.throughputJobs,
          inFlight: opts.inFlight,
          elapsedMs,
          perSecond: (opts.throughputJobs / elapsedMs) * 1000,
          steadyPerSecond: steadyRate(doneAt),
        },
        load,
      };
    } finally {
      worker.shutdown();
      await running.catch(noop);
    }
  } finally {
    await native.close();
  }
}

/**
 * One connection LISTENs; another runs BEGIN, INSERT into a scratch table, pg_notify, COMMIT (the
 * four round trips of the service's markStarted). Latency: BEGIN sent → notification received.
 */
export async function bareNotify(opts: { databaseUrl: string; warmup: number; iterations: number }): Promise<Summary> {
  const channel = 'bench_notify';
  const listener = new pg.Client({ connectionString: opts.databaseUrl });
  const writer = new pg.Client({ connectionString: opts.databaseUrl });
  const waiters = new Map<string, (at: number) => void>();
  listener.on('notification', (msg) => {
    const at = nowMs();
    const wake = waiters.get(msg.payload ?? '');
    waiters.delete(msg.payload ?? '');
    wake?.(at);
  });
  try {
    await listener.connect();
    await writer.connect();
    await listener.query(`LISTEN ${channel}`);
    await writer.query('CREATE TABLE IF NOT EXISTS bench_notify_scratch (id text PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now())');
    const once = async (id: string) => {
      const arrived = new Promise<number>((resolve) => waiters.set(id, resolve));
      const t0 = nowMs();
      await writer.query('BEGIN');
      await writer.query('INSERT INTO bench_notify_scratch (id) VALUES ($1)', [id]);
      await writer.query('SELECT pg_notify($1, $2)', [channel, id]);
      await writer.query('COMMIT');
      return (await arrived) - t0;
    };
    for (let i = 0; i < opts.warmup; i++) await once(`w${i}`);
    const samples: number[] = [];
    for (let i = 0; i < opts.iterations; i++) samples.push(await once(`l${i}`));
    await writer.query('DROP TABLE bench_notify_scratch');
    return summarize(samples);
  } finally {
    await listener.end().catch(noop);
    await writer.end().catch(noop);
  }
}
