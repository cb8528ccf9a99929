import path from 'node:path';
import type { Knex } from 'knex';
import { apiClient } from './api';
import { createDb } from '../src/db/knex';
import { migrateLatest } from '../src/db/migrate';
import { BARE_DATABASE, startBareService } from './bare-service';
import { startComposeShape } from './compose-shape';
import { watchLoad } from './load';
import { type PostgresPerJob, STATS_FLUSH_MS, settledWindow, watchPostgres } from './postgres-counters';
import { startLoadGenerator } from './load-process';
import type { DispatchSample } from './service';
import { type BareStack, anotherWorkspaceKey, databaseBeside } from './stack';
import { sleep, steadyRate } from './stats';

// The production shape against the bare service, on the bench's stack: our API and worker as
// compose runs them (bench/compose-shape.ts) and the bare service with its worker
// (bench/bare-service.ts), all four compiled and started alike, driven by one load generator in a
// process of its own (bench/load-process.ts). Latency is taken in rounds the bench interleaves
// with its others; throughput in rounds alternated bare, ours, ours, bare. Each side has a
// database of its own (OURS_DATABASE, BARE_DATABASE): PostgreSQL wakes every LISTEN connection of
// a database for each NOTIFY, so ours beside the bench's other listeners (bench:dispatch's
// in-process service, its NOTIFY probes) would pay a transaction on each for every job, and would
// not be the one listener that hands a queued job to its polls in memory, as one API instance
// alone on its database is (docs/performance: what more instances cost is measured apart).

/** Our API and worker's database, beside the stack's and the bare service's. */
export const OURS_DATABASE = 'compose_shape';

export type Side = 'ours' | 'bare';
const THROUGHPUT_ORDER: Side[] = ['bare', 'ours', 'ours', 'bare'];
const COUNTERS = ['xacts', 'writes', 'fetched', 'xids', 'walFsyncs'] as const;
/** How long the stack is left idle to read PostgreSQL's background rate. */
const QUIET_MS = 4000;
/** How long after a throughput round its processes' CPU is still counted: the runs' last workflow tasks. */
const TAIL_MS = 1100;
/** The job-state transitions on a job's hot path: submit → QUEUED, assign → RUNNING, result → SUCCEEDED. */
export const TRANSITIONS_PER_JOB = 3;

export interface SideThroughput {
  jobs: number;
  elapsedMs: number;
  perSecond: number;
  /** The mean over its rounds of the middle 80% rate. */
  steadyPerSecond: number;
  polls: number;
  /** CPU per job by process group, ms. */
  cpu: Record<string, number>;
  postgres: PostgresPerJob;
}

export async function startServiceVsBare(stack: BareStack) {
  const oursEnv = { DATABASE_URL: await databaseBeside(stack, OURS_DATABASE) };
  const db = createDb(oursEnv.DATABASE_URL);
  const stops: Array<() => Promise<void>> = [() => db.destroy()];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  };
  try {
    await migrateLatest(db);
    const userKey = await anotherWorkspaceKey(db, 'bench-ours');
    const compose = await startComposeShape(stack, oursEnv);
    stops.push(compose.stop);
    const bare = await startBareService(stack);
    stops.push(bare.stop);
    const load = await startLoadGenerator(path.join(stack.dataDir, 'logs'));
    stops.push(load.stop);
    const urls: Record<Side, string> = { ours: compose.url, bare: bare.url };
    const clients = { ours: compose.api, bare: apiClient(bare.url) };
    const pids = { ...compose.pids, ...bare.pids, [load.pid]: 'load generator' };
    const keys: Record<Side, string> = { ours: userKey, bare: stack.userKey };
    const latencyNode = {
      ours: await clients.ours.register(keys.ours, 'bench-compose-latency', { role: 'compose-latency' }),
      bare: await clients.bare.register(keys.bare, 'bench-bare-latency'),
    };
    const tpNodes = async (side: Side) =>
      Promise.all([1, 2, 3, 4].map((i) => clients[side].register(keys[side], `bench-${side}-tp-${i}`)));
    const nodes = { ours: await tpNodes('ours'), bare: await tpNodes('bare') };
    const counted = [OURS_DATABASE, BARE_DATABASE];

    const throughputRound = (side: Side, jobs: number, inFlight: number) =>
      load.throughput(urls[side], { userKey: keys[side], nodes: nodes[side], jobs, inFlight, maxJobs: 50 });

    return {
      pids,
      /** Our database, and the settings that put another of our processes on it. */
      ours: { db, env: oursEnv },
      /**
       * An unmeasured throughput round a side (the bare service's first, so ours, measured second,
       * is not left idle long): each side's database pool grows to its size here, and the rounds
       * then measure services in their steady state, not the first statements of new connections
       * (a new backend loads its catalog as it plans each statement, milliseconds of CPU each).
       */
      async warmThroughput(jobs: number, inFlight: number): Promise<void> {
        for (const side of ['bare', 'ours'] as const) await throughputRound(side, jobs, inFlight);
      },
      /** One latency round on one side: submit sent → poll answer with the job, the poll already waiting. */
      latency: (side: Side, iterations: number, warmup = 0): Promise<DispatchSample[]> =>
        load.latency(urls[side], { userKey: keys[side], node: latencyNode[side], warmup, iterations }),

      /**
       * Throughput rounds of `jobs / 2` each (200 in flight, four nodes polling up to 50), with the
       * CPU of every process and PostgreSQL's counters taken around each round and summed by side.
       * PostgreSQL's figures are net of the idle stack's own traffic (webhook relays, notifier
       * pings, reconcilers: per second, whatever the jobs), its rate read in a quiet window before
       * and after the rounds: what remains is the hot path's. Each round's window opens and closes
       * once every backend has reported (STATS_FLUSH_MS), so no round is charged another's.
       */
      async throughput(
        jobs: number,
        inFlight: number,
      ): Promise<Record<Side, SideThroughput> & { background: PostgresPerJob }> {
        const perRound = Math.ceil(jobs / 2);
        const acc = {} as Record<Side, SideThroughput & { steady: number[]; pgWindowMs: number }>;
        const quietBefore = await backgroundRate(stack.db, counted);
        for (const side of THROUGHPUT_ORDER) {
          const cpu = watchLoad(undefined, pids);
          // Opened once the last round's backends have all reported (see STATS_FLUSH_MS).
          const pg = await watchPostgres(stack.db, counted);
          const tp = await throughputRound(side, perRound, inFlight);
          // The round's tail (runs completing after their last answer) is charged to its CPU.
          await sleep(TAIL_MS);
          cpu.stop(perRound);
          await pg.stop(perRound, STATS_FLUSH_MS - TAIL_MS);
          const a = (acc[side] ??= {
            jobs: 0,
            elapsedMs: 0,
            perSecond: 0,
            steadyPerSecond: 0,
            steady: [],
            polls: 0,
            cpu: {},
            postgres: { xacts: 0, writes: 0, fetched: 0, xids: 0, walFsyncs: 0 },
            pgWindowMs: 0,
          });
          a.jobs += perRound;
          a.elapsedMs += tp.elapsedMs;
          a.polls += tp.polls;
          a.steady.push(steadyRate(tp.doneAt));
          a.pgWindowMs += pg.windowMs();
          // Sums of ms and counts; divided by the side's jobs below.
          for (const [group, ms] of Object.entries(cpu.perJob(1))) a.cpu[group] = (a.cpu[group] ?? 0) + ms;
          const p = pg.perJob();
          for (const k of COUNTERS) a.postgres[k] += p[k] * perRound;
        }
        const quietAfter = await backgroundRate(stack.db, counted);
        const background = {} as PostgresPerJob;
        for (const k of COUNTERS) background[k] = (quietBefore[k] + quietAfter[k]) / 2;
        for (const a of Object.values(acc)) {
          a.perSecond = (a.jobs / a.elapsedMs) * 1000;
          a.steadyPerSecond = a.steady.reduce((s, v) => s + v, 0) / a.steady.length;
          for (const group of Object.keys(a.cpu)) a.cpu[group] /= a.jobs;
          for (const k of COUNTERS) a.postgres[k] = (a.postgres[k] - background[k] * a.pgWindowMs) / a.jobs;
        }
        return { ...acc, background };
      },
      /** 503s with Retry-After the load generator waited out. */
      shed: () => load.shed(),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** PostgreSQL's counts per ms in `databases` while nothing is asked of the stack. */
async function backgroundRate(db: Knex, databases: string[]): Promise<PostgresPerJob> {
  const pg = await settledWindow(db, () => sleep(QUIET_MS), databases);
  const total = pg.perJob();
  const rate = {} as PostgresPerJob;
  for (const k of COUNTERS) rate[k] = total[k] / pg.windowMs();
  return rate;
}

/** The four processes a job costs in a group's CPU report: the API side, the worker side, Temporal and PostgreSQL. */
export function cpuOfSide(
  cpu: Record<string, number>,
  side: Side,
): Record<'api' | 'worker' | 'temporal' | 'postgres', number> {
  const temporal = cpu['temporal server'] ?? cpu['temporal dev server'] ?? 0;
  return side === 'ours'
    ? { api: cpu['API process'] ?? 0, worker: cpu['worker process'] ?? 0, temporal, postgres: cpu.postgres ?? 0 }
    : { api: cpu['bare service'] ?? 0, worker: cpu['bare service worker'] ?? 0, temporal, postgres: cpu.postgres ?? 0 };
}
