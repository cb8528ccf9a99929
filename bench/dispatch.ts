/**
 * `npm run bench:dispatch`: how fast the service hands a submitted job to a waiting agent, and how
 * many jobs a second it carries end to end, next to what the same infrastructure costs bare.
 *
 * It starts its own stack as the test suite does (ephemeral Temporal dev server and PostgreSQL on
 * free ports, data in a temp folder; the API and the worker in this process, so submits start
 * their workflows eagerly) and measures, on that one stack:
 *
 * - dispatch latency: a node's long poll (`nodes/poll`, maxJobs 1) is already waiting; the time
 *   from just before `jobs/submit` is sent to the poll answer holding that job. One job at a time,
 *   each reported (`nodes/result`) before the next; warm-up first.
 * - throughput: a submit pool keeps 200 jobs in flight; four nodes long-poll (maxJobs 50) and
 *   report every job's result at once; a job is done when its read-model row is SUCCEEDED (the
 *   bench reads the rows it waits for every 50 ms, in one statement of its own connection).
 *   jobs/s = jobs / (first submit → last done).
 * - baselines: (a) a bare Temporal client + worker on their own task queue (same worker options,
 *   same dev server), started eagerly over the worker's NativeConnection, in the job protocol's
 *   own shape: a start with the four search attributes, an assign Update that upserts state and
 *   agent, a result Update that upserts and completes. Latency: start → assign answered;
 *   throughput: the whole loop with 200 in flight. The old minimal loop (one Update, then the run
 *   completes) is run for throughput too and printed for context. (b) PostgreSQL INSERT +
 *   pg_notify in a transaction → delivery to a LISTEN connection.
 *   baseline_p50 = bare start→assign p50 + bare NOTIFY p50: what one dispatch must at least pay
 *   (submit starts the workflow, a NOTIFY wakes the poll, the poll runs the assign Update);
 *   baseline_p99 likewise from the p99s. baseline_throughput = the protocol loop's jobs/s,
 *   minimal_throughput the minimal loop's.
 * - the production shape against the bare service: `npm run api` and `npm run worker` as
 *   processes of their own, as compose runs them (on a task queue of their own; a submit there
 *   starts its run without the eager first task), and the bare service: a plain node:http server
 *   with `pg` and the Temporal client (bench/bare-service-server.ts) and its worker, doing the
 *   agent protocol with nothing of ours. Submit starts the run with the four search attributes,
 *   then inserts the row with its NOTIFY in one statement; a long poll (woken by LISTEN/NOTIFY)
 *   claims each job with one prepared UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1)
 *   RETURNING and sends the assign Update; a result sends the result Update, then ends the row in
 *   one statement; its workflow races a loss timer against the result. No framework,
 *   authentication, codec, audit, metering or rate limiting. All four processes are compiled
 *   (dist/) and run by node with the flags `npm run api` and `npm run worker` give them
 *   (src/runtime/node-flags.ts: the bare server gets the API's, its worker the worker's);
 *   the bare service gets our pool size, workflow cache and loss clock. Each side has a database
 *   of its own, away from this process's listeners (bench/service-vs-bare.ts). One load generator, a
 *   process of its own (compiled, same flags), drives both over the same HTTP protocol: their
 *   dispatch latency in the interleaved rounds, then, after an unmeasured round a side that grows
 *   each side's database pool, throughput in rounds of half the jobs alternated bare, ours, ours,
 *   bare (four nodes polling up to 50, 200 in flight; a job is done when its result is answered,
 *   which both give once the row is written). service_ratio_p50 and
 *   _p99 = ours ÷ bare service latency, service_ratio_throughput = ours ÷ bare service jobs/s;
 *   compose_ratio_* set the same figures against the bare Temporal baselines. Around each
 *   throughput round, from /proc and PostgreSQL's own statistics (both sides printed):
 *   cpu_ms_per_job = the CPU of the API, the worker, Temporal and PostgreSQL per job, summed;
 *   tx_per_transition = the side's database's transactions (pg_stat_database xact_commit +
 *   xact_rollback, polls included) per job ÷ 3, the transitions a job makes on the hot path:
 *   submit → QUEUED, assign → RUNNING, result → SUCCEEDED; fsync_commits_per_job = the
 *   transaction IDs PostgreSQL handed out per job (the advance of pg_current_snapshot()'s xmax,
 *   read with the database quiet). Both are net of what the idle stack sends whatever the jobs
 *   (webhook relays, notifier pings, reconcilers of both our processes and the bench's own),
 *   its rate read in a quiet window before and after the rounds and charged by each round's
 *   length. A transaction takes an
 *   ID when it first writes a row, locks one or NOTIFYs, and with synchronous_commit on (printed)
 *   each such commit that wrote WAL waits for its flush; a NOTIFY-only or rolled-back one does
 *   not, so this is an upper bound, and it counts the whole cluster (with --temporal=server, the
 *   Temporal server's own commits too). PostgreSQL 18 moved pg_stat_wal's wal_sync to pg_stat_io,
 *   whose WAL fsyncs are printed beside it: fewer, since commits that wait together share one.
 * - end to end with real agents: two reference agents (`compute agent`, 8 slots each, processes
 *   of their own) run 1000 `true` jobs, 200 in flight, done when SUCCEEDED in the read model as
 *   above; `ratio_fleet` = its jobs/s against the service's own throughput loop. Then again,
 *   and once a third of the jobs are done another workspace bursts 2000 submits no agent takes
 *   (100 at a time) at the same API: `ratio_completions_in_burst` = the agents' completions per
 *   second during it against outside it. And a third time, four jobs pushing 1000-line log batches back to back
 *   from a third of the jobs done to two thirds: `ratio_completions_in_log_flood`. The burst and
 *   the flood rounds alternate, --disturbed-rounds=N of each (default 3), and each figure pools
 *   its rounds: all their completions during the disturbance per second against all outside it.
 * - tracing's cost (bench/tracing-cost.ts): two API + worker pairs as compose runs them, one
 *   exporting every span to a real Jaeger (OTEL_EXPORTER_OTLP_ENDPOINT), one untraced, one load
 *   generator; latency rounds interleaved, --tracing=N jobs a side in throughput rounds alternated:
 *   tracing_ratio_p50, tracing_ratio_p99, tracing_ratio_throughput and tracing_ratio_cpu (their API
 *   and worker CPU per job), traced ÷ untraced.
 * - a deep queue, first while the process is fresh: 10 000 jobs no agent takes (50 submits at a
 *   time), then every one cancelled
 *   (50 at a time): submit and cancel rates and CPU per job, the resident memory of this process
 *   (API + worker, its workflow cache holding WORKFLOW_CACHE_SIZE runs) and of the Temporal
 *   server with the queue full, and so the memory per queued job. Before it, a worker of its own
 *   fills its cache with 1000 runs of the job workflow, then 1000 of the bare protocol workflow:
 *   what one cached run weighs, next to the SDK's own floor.
 *
 * Options: --latency=N (measured dispatches, default 300), --throughput=N (jobs per throughput
 * run, default 1000), --throughput-warmup=N (unmeasured jobs a side before the production shape's
 * throughput rounds against the bare service, default 200), --warmup=N (default 20), --fleet=N
 * (jobs through the agents, default 1000), --burst=N (default 2000), --queue=N (default 10000),
 * --codec=N (jobs per round of the codec comparison, default 500), --tracing=N (jobs per side of
 * the tracing comparison, default 600), --disturbed-rounds=N (default 3). WORKFLOW_CACHE_SIZE=N in the
 * environment runs the service with that cache. --temporal=server runs it all on the Temporal
 * server users deploy (PostgreSQL persistence, bench/stack.ts) instead of the dev server. The last
 * line of output is the summary, alone.
 */
import { apiClient, shedCount } from './api';
import { type BareLatency, startBareNotify, startBareTemporal } from './baselines';
import { watchLoad, watchQueries } from './load';
import { watchPostgres } from './postgres-counters';
import { profileDispatch } from './profile';
import { cacheWeight } from './cache-weight';
import { codecCost } from './codec';
import { tracingCost } from './tracing-cost';
import { TRANSITIONS_PER_JOB, cpuOfSide, startServiceVsBare } from './service-vs-bare';
import { endToEnd, reportEndToEnd } from './end-to-end';
import { deepQueue } from './queue';
import { type DispatchSample, serviceLatency, serviceThroughput, startNotifyProbe } from './service';
import { type BenchStack, option, runBench } from './stack';
import { describe, ms, summarize } from './stats';

const IN_FLIGHT = 200;
/** Latency rounds per kind, interleaved. */
const ROUNDS = 6;

const say = (line = '') => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`${line}\n`);
const rate = (v: number) => v.toFixed(1);

async function run(
  stack: BenchStack,
  counts: {
    warmup: number;
    latency: number;
    throughput: number;
    throughputWarmup: number;
    fleet: number;
    burst: number;
    queue: number;
    codec: number;
    tracing: number;
    disturbedRounds: number;
  },
) {
  const { config } = stack;
  const temporal = { address: stack.temporalAddress, namespace: config.temporal.namespace };
  const api = apiClient(stack.url);
  const probe = await startNotifyProbe(stack.databaseUrl);
  const bareTemporal = await startBareTemporal(temporal);
  const bareNotify = await startBareNotify(stack.databaseUrl);
  let stopApart: (() => Promise<void>) | undefined;
  try {
    const node = await api.register(stack.userKey, 'bench-latency', { role: 'latency' });
    const serviceRound = (iterations: number, warmup = 0) =>
      serviceLatency({ api, userKey: stack.userKey, node, warmup, iterations, settleMs: 40, probe });

    // Rounds alternate bare and service, so both see the machine in the same state: on a shared
    // VM the speed drifts by tens of percent over a minute, which skews a ratio of two phases.
    // First, while the process is fresh: its resident memory then says what the queue weighs.
    note('weighing a cached run: 1000 of the job workflow, then 1000 of the bare protocol workflow …');
    const weight = await cacheWeight({ ...temporal, runs: 1000 });
    note(`deep queue: ${counts.queue} jobs submitted, then cancelled …`);
    const queue = await deepQueue({ stack, api, jobs: counts.queue, concurrency: 50 });
    note('starting the API and a worker as compose runs them, the bare service and its worker, and a load generator …');
    const apart = await startServiceVsBare(stack);
    stopApart = apart.stop;
    note(
      `latency: ${ROUNDS} interleaved rounds of bare Temporal, bare PostgreSQL, the service in one process, as compose runs it, and the bare service …`,
    );
    await bareTemporal.latency(counts.warmup);
    await bareNotify.latency(counts.warmup);
    await serviceRound(0, counts.warmup);
    await apart.latency('ours', 0, counts.warmup);
    await apart.latency('bare', 0, counts.warmup);
    const bareRuns: BareLatency[] = [];
    const notifySamples: number[] = [];
    const samples: DispatchSample[] = [];
    const composeSamples: DispatchSample[] = [];
    const bareServiceSamples: DispatchSample[] = [];
    const latencyLoad = watchLoad(stack.service.db, apart.pids);
    for (let round = 0; round < ROUNDS; round++) {
      const n = Math.ceil(counts.latency / ROUNDS);
      bareRuns.push(await bareTemporal.latency(n));
      notifySamples.push(...(await bareNotify.latency(n)));
      samples.push(...(await serviceRound(n)).samples);
      composeSamples.push(...(await apart.latency('ours', n)));
      bareServiceSamples.push(...(await apart.latency('bare', n)));
    }
    const latencyLoadLines = latencyLoad.stop();
    const bare = {
      latency: summarize(bareRuns.flatMap((r) => r.total)),
      start: summarize(bareRuns.flatMap((r) => r.start)),
      update: summarize(bareRuns.flatMap((r) => r.update)),
      eagerShare: bareRuns.reduce((a, r) => a + r.eager, 0) / bareRuns.reduce((a, r) => a + r.total.length, 0),
      latencyWorkflowIds: bareRuns.flatMap((r) => r.workflowIds),
    };
    const notify = summarize(notifySamples);
    const latency = {
      latency: summarize(samples.map((x) => x.polledAt - x.sentAt)),
      submit: summarize(samples.map((x) => x.submittedAt - x.sentAt)),
      samples,
    };
    const composeLatency = summarize(composeSamples.map((x) => x.polledAt - x.sentAt));
    const bareServiceLatency = summarize(bareServiceSamples.map((x) => x.polledAt - x.sentAt));

    note('throughput: bare Temporal, minimal loop …');
    const minimalTpLoad = watchLoad(stack.service.db);
    const minimalThroughput = await bareTemporal.throughput(counts.throughput, IN_FLIGHT, 'minimal');
    const minimalTpLoadLines = minimalTpLoad.stop(counts.throughput);
    note('throughput: bare Temporal, protocol loop …');
    const bareTpLoad = watchLoad(stack.service.db);
    const bareThroughput = await bareTemporal.throughput(counts.throughput, IN_FLIGHT, 'protocol');
    const bareTpLoadLines = bareTpLoad.stop(counts.throughput);
    note('throughput: service …');
    const nodes = await Promise.all(
      [1, 2, 3, 4].map((i) => api.register(stack.userKey, `bench-tp-${i}`, { role: 'throughput' })),
    );
    const tpLoad = watchLoad(stack.service.db);
    const tpPostgres = await watchPostgres(stack.db);
    const tpQueries = watchQueries(stack.service.db);
    const tp = await serviceThroughput({
      api,
      databaseUrl: stack.databaseUrl,
      userKey: stack.userKey,
      nodes,
      jobs: counts.throughput,
      inFlight: IN_FLIGHT,
      maxJobs: 50,
      timeoutMs: 150_000,
    });
    const tpLoadLines = [
      ...tpLoad.stop(counts.throughput),
      tpQueries.stop(counts.throughput),
      await tpPostgres.stop(counts.throughput),
    ];
    note('throughput: the API and the worker as compose runs them against the bare service, rounds alternated …');
    // As bench:hot-path does: each side's pool grows to its size first (the latency rounds used a
    // connection or two), so the rounds measure services in their steady state.
    await apart.warmThroughput(counts.throughputWarmup, IN_FLIGHT);
    const apartTp = await apart.throughput(counts.throughput, IN_FLIGHT);
    const composeTp = apartTp.ours;
    const bareServiceTp = apartTp.bare;
    const composeCpu = composeTp.cpu;
    const serviceShed = apart.shed();
    await apart.stop();
    stopApart = undefined;
    const postgresSettings = await stack.db.raw(
      `SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS synchronous_commit`,
    );
    note(`the payload codec's cost: the service loop with and without it, ${counts.codec} jobs a round, alternating …`);
    const codec = await codecCost({ stack, jobs: counts.codec, inFlight: IN_FLIGHT });
    note(
      `tracing's cost: the API and worker as compose runs them, traced to Jaeger and untraced, ${counts.tracing} jobs a side …`,
    );
    const traced = await tracingCost(stack, {
      rounds: 4,
      iterations: Math.max(10, Math.round(counts.latency / 8)),
      jobs: counts.tracing,
      inFlight: IN_FLIGHT,
    });
    const e2e = await endToEnd({
      stack,
      api,
      jobs: counts.fleet,
      burst: counts.burst,
      disturbedRounds: counts.disturbedRounds,
      inFlight: IN_FLIGHT,
      note,
    });
    note('profile: reading workflow histories …');
    const profile = await profileDispatch({
      ...temporal,
      db: stack.db,
      samples: latency.samples,
      bareWorkflowIds: bare.latencyWorkflowIds,
      dumpOne: true,
    });

    const baselineP50 = bare.latency.p50 + notify.p50;
    const baselineP99 = bare.latency.p99 + notify.p99;
    const ratioP50 = latency.latency.p50 / baselineP50;
    const ratioP99 = latency.latency.p99 / baselineP99;
    const ratioThroughput = tp.perSecond / bareThroughput.perSecond;
    say();
    say('== dispatch latency (poll waiting; submit sent → poll answer with the job) ==');
    say(describe('service: submit → poll answer', latency.latency));
    say(describe('service: submit round trip (same jobs)', latency.submit));
    say(describe('bare Temporal: start → assign answered', bare.latency));
    say(describe('  start RPC (returns with the eager task)', bare.start));
    say(describe('  Update RPC (waits for the first task)', bare.update));
    say(`  bare starts that ran eagerly: ${(bare.eagerShare * 100).toFixed(0)}%`);
    say(describe('bare PostgreSQL: INSERT + NOTIFY → LISTEN', notify));
    for (const line of latencyLoadLines) say(`  latency rounds (bare and service): ${line}`);
    say(
      `baseline p50 = ${ms(bare.latency.p50)} + ${ms(notify.p50)} = ${ms(baselineP50)} ms; ratio ${ratioP50.toFixed(2)}`,
    );
    say(
      `baseline p99 = ${ms(bare.latency.p99)} + ${ms(notify.p99)} = ${ms(baselineP99)} ms; ratio ${ratioP99.toFixed(2)}`,
    );
    say();
    say(`== throughput (${IN_FLIGHT} in flight) ==`);
    say(
      `service: ${tp.jobs} jobs in ${(tp.elapsedMs / 1000).toFixed(2)} s = ${rate(tp.perSecond)} jobs/s (middle 80%: ${rate(tp.steadyPerSecond)} jobs/s); ${tp.polls} polls, ${tp.jobsPerPoll.toFixed(1)} jobs per poll`,
    );
    for (const [message, count] of tp.pollErrors) say(`  ${count} polls failed (retried): ${message}`);
    say(describe('  submit round trip under load', tp.submit));
    say(describe('  submit → SUCCEEDED in the read model', tp.endToEnd));
    for (const line of tpLoadLines) say(`  ${line}`);
    const b = bareThroughput;
    say(
      `bare Temporal, protocol loop: ${b.jobs} start+assign+result in ${(b.elapsedMs / 1000).toFixed(2)} s = ${rate(b.perSecond)} /s (middle 80%: ${rate(b.steadyPerSecond)} /s)`,
    );
    for (const line of bareTpLoadLines) say(`  ${line}`);
    const m = minimalThroughput;
    say(
      `bare Temporal, minimal loop (context): ${m.jobs} start+Update+result in ${(m.elapsedMs / 1000).toFixed(2)} s = ${rate(m.perSecond)} /s (middle 80%: ${rate(m.steadyPerSecond)} /s)`,
    );
    for (const line of minimalTpLoadLines) say(`  ${line}`);
    say(`ratio ${ratioThroughput.toFixed(2)} (against the minimal loop ${(tp.perSecond / m.perSecond).toFixed(2)})`);
    say();
    const composeRatioP50 = composeLatency.p50 / baselineP50;
    const composeRatioP99 = composeLatency.p99 / baselineP99;
    const composeRatioTp = composeTp.perSecond / bareThroughput.perSecond;
    const serviceRatioP50 = composeLatency.p50 / bareServiceLatency.p50;
    const serviceRatioP99 = composeLatency.p99 / bareServiceLatency.p99;
    const serviceRatioTp = composeTp.perSecond / bareServiceTp.perSecond;
    const sum = (o: Record<string, number>) => Object.values(o).reduce((a, v) => a + v, 0);
    const oursCpu = cpuOfSide(composeCpu, 'ours');
    const bareCpu = cpuOfSide(bareServiceTp.cpu, 'bare');
    const cpuMsPerJob = sum(oursCpu);
    const txPerTransition = composeTp.postgres.xacts / TRANSITIONS_PER_JOB;
    const fsyncCommitsPerJob = composeTp.postgres.xids;
    const f1 = (v: number) => v.toFixed(1);
    say('== production shape against the bare service: both apart and compiled, one load generator of their own ==');
    say(describe('compose shape: submit → poll answer', composeLatency));
    say(describe('bare service: submit → poll answer', bareServiceLatency));
    say(
      `ratio to the bare service: p50 ${serviceRatioP50.toFixed(2)}, p99 ${serviceRatioP99.toFixed(2)}; to the baseline: p50 ${composeRatioP50.toFixed(2)}, p99 ${composeRatioP99.toFixed(2)} (one process, starts eager: ${ratioP50.toFixed(2)}, ${ratioP99.toFixed(2)})`,
    );
    for (const [name, t] of [
      ['compose shape', composeTp],
      ['bare service', bareServiceTp],
    ] as const)
      say(
        `throughput, ${name}: ${t.jobs} jobs in ${(t.elapsedMs / 1000).toFixed(2)} s = ${rate(t.perSecond)} jobs/s (middle 80%: ${rate(t.steadyPerSecond)}); ${t.polls} polls`,
      );
    say(
      `ratio to the bare service ${serviceRatioTp.toFixed(2)}; to the protocol loop ${composeRatioTp.toFixed(2)} (one process: ${ratioThroughput.toFixed(2)})`,
    );
    say(
      `  CPU per job (ms), ours: API ${f1(oursCpu.api)}, worker ${f1(oursCpu.worker)}, Temporal ${f1(oursCpu.temporal)}, PostgreSQL ${f1(oursCpu.postgres)} = ${f1(cpuMsPerJob)}; ` +
        `bare service: server ${f1(bareCpu.api)}, worker ${f1(bareCpu.worker)}, Temporal ${f1(bareCpu.temporal)}, PostgreSQL ${f1(bareCpu.postgres)} = ${f1(sum(bareCpu))}; ` +
        `the load generator ${f1(composeCpu['load generator'] ?? 0)} against ${f1(bareServiceTp.cpu['load generator'] ?? 0)}`,
    );
    for (const [name, t] of [
      ['ours', composeTp],
      ['bare service', bareServiceTp],
    ] as const) {
      const q = t.postgres;
      say(
        `  PostgreSQL per job, ${name}: ${f1(q.xacts)} transactions (${(q.xacts / TRANSITIONS_PER_JOB).toFixed(2)} per transition), ` +
          `${f1(q.xids)} commits waiting for a WAL flush, ${f1(q.walFsyncs)} WAL fsyncs, ${f1(q.writes)} row writes, ${f1(q.fetched)} rows fetched`,
      );
    }
    const settings = postgresSettings.rows[0] as { fsync: string; synchronous_commit: string };
    const idle = apartTp.background;
    say(
      `  (net of the idle stack's own, read before and after the rounds: ${f1(idle.xacts * 1000)} transactions/s, ${f1(idle.xids * 1000)} transaction IDs/s; ` +
        `PostgreSQL fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit})`,
    );
    say();
    say(
      `payload codec: ${rate(codec.sealed)} jobs/s with every payload sealed, ${rate(codec.plain)} jobs/s without the codec (PAYLOAD_CODEC=off): ratio ${codec.ratio.toFixed(2)} (target ≥ 0.95)`,
    );
    say(
      `tracing (compose shape, every span exported to Jaeger against tracing off): dispatch p50 ${ms(traced.latency.traced.p50)} against ${ms(traced.latency.untraced.p50)} ms ` +
        `(ratio ${traced.ratioP50.toFixed(2)}), p99 ${ms(traced.latency.traced.p99)} against ${ms(traced.latency.untraced.p99)} ms (ratio ${traced.ratioP99.toFixed(2)}); ` +
        `${rate(traced.perSecond.traced)} against ${rate(traced.perSecond.untraced)} jobs/s (ratio ${traced.ratioThroughput.toFixed(2)}); ` +
        `API + worker CPU per job ${f1(traced.cpuMsPerJob.traced)} against ${f1(traced.cpuMsPerJob.untraced)} ms (ratio ${traced.ratioCpu.toFixed(2)})`,
    );
    say();
    const { ratioFleet, ratioBurst, ratioFlood } = reportEndToEnd(e2e, tp.perSecond, IN_FLIGHT, say);
    say();
    const [rssBefore, rssFull, rssAfter] = queue.rss.process;
    const [tBefore, tFull, tAfter] = queue.rss.temporal;
    const perJobKiB = ((rssFull - rssBefore) * 1024) / queue.jobs;

    say(`== deep queue: ${queue.jobs} jobs queued, then cancelled (50 at a time) ==`);
    say(`submit: ${rate(queue.submitPerSecond)} jobs/s; ${queue.submitLoad.join('; ')}`);
    say(`cancel: ${rate(queue.cancelPerSecond)} jobs/s; ${queue.cancelLoad.join('; ')}`);
    say(
      `memory, this process (API + worker): ${rssBefore.toFixed(0)} → ${rssFull.toFixed(0)} MiB with the queue full (${perJobKiB.toFixed(1)} KiB per queued job, ` +
        `${queue.cachedWorkflows} runs cached of WORKFLOW_CACHE_SIZE ${queue.cacheSize}) → ${rssAfter.toFixed(0)} MiB after the cancels`,
    );
    say(
      `a cached run weighs at most ${weight.job.toFixed(0)} KiB (the bare protocol workflow on the same SDK: ${weight.bare.toFixed(0)} KiB): ` +
        `the worker's cache holds at most ${((weight.job * queue.cacheSize) / 1024).toFixed(0)} MiB of runs whatever the queue's depth`,
    );
    say(
      `memory, Temporal server: ${tBefore.toFixed(0)} → ${tFull.toFixed(0)} MiB (${(((tFull - tBefore) * 1024) / queue.jobs).toFixed(1)} KiB per queued job) → ${tAfter.toFixed(0)} MiB`,
    );
    say();
    say('== profile of the measured dispatches ==');
    for (const line of profile.lines) say(line);
    say();
    return (
      `dispatch p50=${ms(latency.latency.p50)} p99=${ms(latency.latency.p99)} baseline_p50=${ms(baselineP50)} baseline_p99=${ms(baselineP99)} ` +
      `ratio_p50=${ratioP50.toFixed(2)} ratio_p99=${ratioP99.toFixed(2)} ` +
      `throughput=${rate(tp.perSecond)} baseline_throughput=${rate(bareThroughput.perSecond)} ratio_throughput=${ratioThroughput.toFixed(2)} ` +
      `minimal_throughput=${rate(minimalThroughput.perSecond)} ` +
      `compose_p50=${ms(composeLatency.p50)} compose_ratio_p50=${composeRatioP50.toFixed(2)} compose_ratio_p99=${composeRatioP99.toFixed(2)} compose_throughput=${rate(composeTp.perSecond)} compose_ratio_throughput=${composeRatioTp.toFixed(2)} ` +
      `service_ratio_p50=${serviceRatioP50.toFixed(2)} service_ratio_p99=${serviceRatioP99.toFixed(2)} service_ratio_throughput=${serviceRatioTp.toFixed(2)} ` +
      `bare_service_p50=${ms(bareServiceLatency.p50)} bare_service_throughput=${rate(bareServiceTp.perSecond)} ` +
      `cpu_ms_per_job=${f1(cpuMsPerJob)} bare_service_cpu_ms_per_job=${f1(sum(bareCpu))} tx_per_transition=${txPerTransition.toFixed(2)} fsync_commits_per_job=${f1(fsyncCommitsPerJob)} ` +
      `cpu_ms_per_job_api=${f1(oursCpu.api)} cpu_ms_per_job_worker=${f1(oursCpu.worker)} cpu_ms_per_job_temporal=${f1(oursCpu.temporal)} cpu_ms_per_job_postgres=${f1(oursCpu.postgres)} ` +
      `ratio_codec=${codec.ratio.toFixed(2)} tracing_ratio_p50=${traced.ratioP50.toFixed(2)} tracing_ratio_p99=${traced.ratioP99.toFixed(2)} tracing_ratio_throughput=${traced.ratioThroughput.toFixed(2)} tracing_ratio_cpu=${traced.ratioCpu.toFixed(2)} events_per_job=${profile.eventsPerJob.toFixed(1)} workflow_tasks_per_job=${profile.workflowTasksPerJob.toFixed(1)} ` +
      `fleet_throughput=${rate(e2e.fleet.perSecond)} ratio_fleet=${ratioFleet.toFixed(2)} ratio_completions_in_burst=${ratioBurst.toFixed(2)} ratio_completions_in_log_flood=${ratioFlood.toFixed(2)} ` +
      `queue_submit=${rate(queue.submitPerSecond)} queue_cancel=${rate(queue.cancelPerSecond)} kib_per_queued_job=${(perJobKiB + ((tFull - tBefore) * 1024) / queue.jobs).toFixed(1)} ` +
      `kib_per_cached_run=${weight.job.toFixed(0)} kib_per_cached_bare_run=${weight.bare.toFixed(0)} retried_503=${shedCount() + serviceShed}`
    );
  } finally {
    await stopApart?.();
    await probe.stop();
    await bareNotify.stop();
    await bareTemporal.stop();
  }
}

runBench((stack) =>
  run(stack, {
    warmup: option('warmup', 20),
    latency: option('latency', 300),
    throughput: option('throughput', 1000),
    throughputWarmup: option('throughput-warmup', 200),
    fleet: option('fleet', 1000),
    burst: option('burst', 2000),
    queue: option('queue', 10_000),
    codec: option('codec', 500),
    tracing: option('tracing', 600),
    disturbedRounds: option('disturbed-rounds', 3),
  }),
);
