/**
 * The hot path alone: the production shape against the bare service (bench/service-vs-bare.ts),
 * the part of bench:dispatch issue 51's service figures come from, in a few minutes, and what
 * PostgreSQL ran for it, statement by statement (pg_stat_statements, loaded for this bench's own
 * cluster). For measuring one lever at a time; bench:dispatch stays the whole picture.
 *
 * Options: --latency=N (measured dispatches a side, default 120, in interleaved rounds),
 * --handed=N (jobs of the round that counts tx_per_transition_handed, default 120),
 * --throughput=N (jobs a side, default 800, in rounds alternated bare, ours, ours, bare),
 * --throughput-warmup=N (unmeasured jobs a side before those rounds, default 200: each side's
 * database pool grows to its size there), --warmup=N (dispatches before the latency rounds,
 * default 20), --idle-apis=N (more API instances on our database, idle throughout, default 0:
 * each is another LISTEN connection, so our submits notify instead of handing their jobs to the
 * polls in memory, and each listener reads every job's notification). Last line:
 * `hot-path service_ratio_p50=… service_ratio_p99=… service_ratio_throughput=… cpu_ms_per_job=…
 * bare_service_cpu_ms_per_job=… tx_per_transition=… fsync_commits_per_job=… tx_per_transition_handed=…`:
 * tx_per_transition counts the throughput rounds (nearly every job claimed from the queue),
 * tx_per_transition_handed a round of our latency loop of its own (every job handed to the poll
 * waiting for it), both net of the idle stack's own transactions.
 */
import type { Knex } from 'knex';
import { TRANSITIONS_PER_JOB, cpuOfSide, startServiceVsBare } from './service-vs-bare';
import { type BareStack, option, runBench, spawnService } from './stack';
import { describe, sleep, summarize } from './stats';
import { STATS_FLUSH_MS, settledWindow } from './postgres-counters';

const IN_FLIGHT = 200;
const ROUNDS = 4;

const say = (line = '') => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`${line}\n`);
const f1 = (v: number) => v.toFixed(1);
const f2 = (v: number) => v.toFixed(2);

interface StatementRow {
  query: string;
  calls: string;
  /** How often it was planned: a statement on a cached generic plan is not. */
  plans: string;
  rows: string;
  total_exec_time: number;
  total_plan_time: number;
  shared_blks_hit: string;
}

/** Our statements (those of `db`'s database) over `jobs`, by total time. */
async function statementsPerJob(db: Knex, jobs: number): Promise<string[]> {
  const { rows } = (await db.raw(
    `SELECT query, calls, plans, rows, total_exec_time, total_plan_time, shared_blks_hit FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query NOT LIKE '%pg_stat_%'
      ORDER BY total_exec_time + total_plan_time DESC LIMIT 25`,
  )) as { rows: StatementRow[] };
  return rows.map(
    (r) =>
      `${f2(Number(r.calls) / jobs).padStart(6)} calls ${f2(Number(r.plans) / jobs).padStart(5)} plans ${f2(Number(r.rows) / jobs).padStart(7)} rows ` +
      `${f2(r.total_plan_time / jobs).padStart(5)} + ${f2(r.total_exec_time / jobs).padStart(5)} ms ${f1(Number(r.shared_blks_hit) / jobs).padStart(7)} blocks  ` +
      r.query.replace(/\s+/g, ' ').slice(0, 220),
  );
}

/**
 * Our transactions per job of a latency loop (each job handed to the poll waiting for it), net of
 * the idle stack's own, read in a quiet window just before with the same waits for the counters.
 */
async function handedTransactions(
  db: Knex,
  loop: () => Promise<unknown[]>,
): Promise<{ perJob: number; statements: string[] }> {
  const counted = async (fn: () => Promise<unknown>) => {
    const pg = await settledWindow(db, fn);
    return { xacts: pg.perJob().xacts, ms: pg.windowMs() };
  };
  const quiet = await counted(() => sleep(STATS_FLUSH_MS));
  let jobs = 0;
  await db.raw('SELECT pg_stat_statements_reset()');
  const busy = await counted(async () => (jobs = (await loop()).length));
  return {
    perJob: (busy.xacts - (quiet.xacts / quiet.ms) * busy.ms) / jobs,
    statements: await statementsPerJob(db, jobs),
  };
}

async function run(stack: BareStack): Promise<string> {
  const counts = {
    warmup: option('warmup', 20),
    latency: option('latency', 120),
    handed: option('handed', 120),
    throughput: option('throughput', 800),
    throughputWarmup: option('throughput-warmup', 200),
    idleApis: option('idle-apis', 0, 0),
  };
  note('starting the API and a worker as compose runs them, the bare service and its worker, and a load generator …');
  const apart = await startServiceVsBare(stack);
  const { db } = apart.ours;
  const idleApis: Array<{ stop(): Promise<void> }> = [];
  try {
    await db.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    for (let i = 0; i < counts.idleApis; i++) idleApis.push(await spawnService(stack, 'api', apart.ours.env));
    note(`latency: ${ROUNDS} interleaved rounds a side …`);
    await apart.latency('ours', 0, counts.warmup);
    await apart.latency('bare', 0, counts.warmup);
    const samples = { ours: [] as number[], bare: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const n = Math.ceil(counts.latency / ROUNDS);
      for (const side of ['ours', 'bare'] as const)
        samples[side].push(...(await apart.latency(side, n)).map((x) => x.polledAt - x.sentAt));
    }
    note(`transactions of ${counts.handed} jobs handed to a waiting poll, and of the idle stack …`);
    const handed = await handedTransactions(db, () => apart.latency('ours', counts.handed));
    const handedTx = handed.perJob;
    note(`throughput: ${counts.throughput} jobs a side, rounds alternated …`);
    await apart.warmThroughput(counts.throughputWarmup, IN_FLIGHT);
    await db.raw('SELECT pg_stat_statements_reset()');
    const tp = await apart.throughput(counts.throughput * 2, IN_FLIGHT);
    const statements = await statementsPerJob(db, tp.ours.jobs);

    const ours = summarize(samples.ours);
    const bare = summarize(samples.bare);
    const sum = (o: Record<string, number>) => Object.values(o).reduce((a, v) => a + v, 0);
    const oursCpu = cpuOfSide(tp.ours.cpu, 'ours');
    const bareCpu = cpuOfSide(tp.bare.cpu, 'bare');
    say(describe('ours: submit → poll answer', ours));
    say(describe('bare service: submit → poll answer', bare));
    for (const [name, t] of [
      ['ours', tp.ours],
      ['bare service', tp.bare],
    ] as const)
      say(
        `throughput, ${name}: ${t.jobs} jobs = ${f1(t.perSecond)} jobs/s (middle 80%: ${f1(t.steadyPerSecond)}); ${t.polls} polls`,
      );
    say(
      `CPU per job (ms), ours: API ${f1(oursCpu.api)}, worker ${f1(oursCpu.worker)}, Temporal ${f1(oursCpu.temporal)}, PostgreSQL ${f1(oursCpu.postgres)} = ${f1(sum(oursCpu))}; ` +
        `bare service: server ${f1(bareCpu.api)}, worker ${f1(bareCpu.worker)}, Temporal ${f1(bareCpu.temporal)}, PostgreSQL ${f1(bareCpu.postgres)} = ${f1(sum(bareCpu))}`,
    );
    for (const [name, p] of [
      ['ours', tp.ours.postgres],
      ['bare service', tp.bare.postgres],
    ] as const)
      say(
        `PostgreSQL per job, ${name}: ${f1(p.xacts)} transactions, ${f1(p.xids)} commits waiting for a WAL flush, ${f1(p.writes)} row writes, ${f1(p.fetched)} rows fetched`,
      );
    say(
      `PostgreSQL per job handed to a waiting poll (ours, latency rounds): ${f1(handedTx)} transactions (${f2(handedTx / TRANSITIONS_PER_JOB)} per transition)`,
    );
    say(
      'our statements per job, by time (calls, plans, rows, planning + execution ms, shared blocks hit, the statement):',
    );
    for (const line of statements) say(`  ${line}`);
    say('the same, per job handed to a waiting poll (the idle stack’s own included):');
    for (const line of handed.statements) say(`  ${line}`);
    return (
      `hot-path service_ratio_p50=${f2(ours.p50 / bare.p50)} service_ratio_p99=${f2(ours.p99 / bare.p99)} ` +
      `service_ratio_throughput=${f2(tp.ours.perSecond / tp.bare.perSecond)} cpu_ms_per_job=${f1(sum(oursCpu))} ` +
      `bare_service_cpu_ms_per_job=${f1(sum(bareCpu))} tx_per_transition=${f2(tp.ours.postgres.xacts / TRANSITIONS_PER_JOB)} ` +
      `fsync_commits_per_job=${f1(tp.ours.postgres.xids)} tx_per_transition_handed=${f2(handedTx / TRANSITIONS_PER_JOB)}` +
      (counts.idleApis > 0 ? ` idle_apis=${counts.idleApis}` : '')
    );
  } finally {
    for (const api of idleApis) await api.stop();
    await apart.stop();
  }
}

runBench(run, {
  inProcess: false,
  postgresSettings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' },
});
