import fs from 'node:fs';
import path from 'node:path';
import { apiClient } from './api';
import { bareIdleCpuPct } from './bare-fleet';
import { startBenchChild } from './child-process';
import type { FleetAgent, FleetAnswer, FleetCall } from './fleet-agents';
import { scrape, total } from '../test/support/metrics';
import { waitingFor, weighWaitingPolls } from './fleet-heap';
import { cpuMsOf, threadCpuMsOf, watchLoad } from './load';
import { busiestStatements, postgresCounters } from './postgres-counters';
import { type BareStack, option, runBench, spawnService } from './stack';
import { describe as line, nowMs, runPool, sleep, summarize } from './stats';
import { describeTail, oursTail } from './tail';

// `npm run bench:fleet`: N long-polling agents (default 10 000) on one API instance, run as its
// own process beside a worker, as compose runs them. The agents are a process of their own
// (bench/fleet-agents.ts): keep-alive connections, a node key each, labels {slot, zone}, a poll always waiting (30 s), a heartbeat
// every 30 s. It measures what the waiting polls cost the API (heap per poll, idle CPU, the
// database's work per second while idle), and how fast a job reaches the one agent its selector
// names with the whole fleet waiting, against the same with 10 agents, and how many claims the
// wakes ran per job dispatched. The heap per poll is weighed first, on an API instance of its own
// (bench/fleet-heap.ts); FLEET_HEAP_SNAPSHOTS=<folder> keeps its heap snapshots there, to see what
// a poll holds. The rest runs on a fresh instance. While idle it lists the statements PostgreSQL
// ran most often (pg_stat_statements); PROFILE_DIR=<dir> profiles the API's CPU, with the idle
// window's bounds beside the profile; FLEET_API_FLAGS='--trace-gc …' adds node flags to the API's.
// The API and the worker run as the image runs them, compiled (see spawnService). Last, with them
// stopped, the same fleet idles against a bare server (bench/bare-fleet.ts): the floor under the
// idle CPU figure.

const AGENTS = option('agents', 10_000);
const JOBS = option('jobs', 200);
const IDLE_S = option('idle', 30);
/** How many polls wait when the API's heap is weighed. */
const MEMORY_DEPTH = option('memory-depth', 2000);
const mib = (b: number) => (b / 2 ** 20).toFixed(0);
const ZONES = 4;
/** The pause between one job's result answered and the next submit (serviceLatency's). */
const SETTLE_MS = 40;

runBench(
  async (stack: BareStack) => {
    const note = (s: string) => process.stderr.write(`${s}\n`);
    await stack.db.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // PROFILE_DIR=dir: a CPU profile of the API there, and the idle window's bounds on the same
    // (monotonic) clock in dir/idle-window.json, to read the idle API's profile alone.
    const profileDir = process.env.PROFILE_DIR;
    const api = await spawnService(stack, 'api', {}, [
      ...(process.env.FLEET_API_FLAGS ? process.env.FLEET_API_FLAGS.split(' ') : []),
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    ]);
    const worker = await spawnService(stack, 'worker');
    const client = apiClient(api.url!);
    const metric = async (name: string, labels: Record<string, string> = {}): Promise<number> =>
      total(await scrape(api.url!), name, labels);
    /** Claims after a poll's start, and those skipped, from one scrape: apart, polls arriving between them skew the difference. */
    const startClaims = async () => {
      const samples = await scrape(api.url!);
      return {
        starts: total(samples, 'compute_claims_total', { after: 'start' }),
        skipped: total(samples, 'compute_claims_total', { after: 'start', outcome: 'skipped' }),
      };
    };
    note(`registering ${AGENTS} agents …`);
    const agents: FleetAgent[] = new Array(AGENTS);
    await runPool(AGENTS, 64, async (i) => {
      const node = await client.register(stack.userKey, `fleet-${i}`, { slot: String(i), zone: `z${i % ZONES}` });
      agents[i] = { ...node, slot: i };
    });
    const depth = Math.min(MEMORY_DEPTH, AGENTS);
    note(`weighing a waiting poll: ${depth} polls on an API instance of their own …`);
    const heap = await weighWaitingPolls(stack, agents.slice(0, depth), depth, process.env.FLEET_HEAP_SNAPSHOTS);
    note(heap.report);

    // The agents are a process of their own (bench/fleet-agents.ts), which announces each job's
    // arrival and, once its result is answered, that it reported it.
    const heard = { arrived: new Map<string, number>(), reported: new Map<string, number>() };
    const awaited = new Map<string, () => void>();
    const fleet = await startBenchChild<FleetCall, FleetAnswer>(
      'fleet-agents',
      path.join(stack.dataDir, 'logs'),
      (m) => {
        for (const what of ['arrived', 'reported'] as const) {
          const jobId = m[what];
          if (typeof jobId !== 'string') continue;
          heard[what].set(jobId, m.at as number);
          awaited.get(`${what} ${jobId}`)?.();
        }
      },
    );
    await fleet.ask({ op: 'agents', url: api.url!, agents });
    const start = (from: number, to: number) => fleet.ask({ op: 'poll', from, to });
    /** When the job arrived at its agent (or its result was answered), on the wall clock both processes share. */
    const heardOf = async (what: keyof typeof heard, jobId: string) => {
      if (!heard[what].has(jobId)) {
        const key = `${what} ${jobId}`;
        const timer = { ref: undefined as NodeJS.Timeout | undefined };
        await new Promise<void>((resolve, reject) => {
          awaited.set(key, resolve);
          timer.ref = setTimeout(() => reject(new Error(`job ${jobId} never ${what}`)), 30_000);
        }).finally(() => (clearTimeout(timer.ref), awaited.delete(key)));
      }
      return heard[what].get(jobId)!;
    };

    /**
     * Submits `JOBS` jobs one at a time, each for one agent of `among` (half by slot, half by
     * zone), and times each to its arrival. As in the other benches' latency rounds, the next is
     * submitted once the last one's result is answered and a settle has passed: a job whose
     * result, run and read model are still at work slows the next submit by as much as the
     * submit itself takes, whatever the fleet's size.
     */
    const dispatch = async (among: FleetAgent[]) => {
      const latencies: number[] = [];
      // Where the time goes: until the submit is answered, and from then to the arrival, by selector kind.
      const parts = { answered: [] as number[], bySlot: [] as number[], byZone: [] as number[] };
      for (let i = 0; i < JOBS; i++) {
        const target = among[Math.floor(Math.random() * among.length)];
        const selector = i % 2 === 0 ? { slot: String(target.slot) } : { zone: `z${target.slot % ZONES}` };
        const t0 = nowMs();
        const jobId = await client
          .call<{ job_id: string }>(
            '/compute/jobs/submit',
            { type: 'COMMAND', command: 'true', selector },
            stack.userKey,
          )
          .then((j) => j.job_id);
        const answered = nowMs();
        const at = await heardOf('arrived', jobId);
        latencies.push(at - t0);
        parts.answered.push(answered - t0);
        (i % 2 === 0 ? parts.bySlot : parts.byZone).push(at - t0);
        await heardOf('reported', jobId);
        await sleep(SETTLE_MS);
      }
      return { latencies, parts };
    };

    /**
     * `dispatch`, with the claims it ran and the API's event-loop delay, GC pauses and pool waits
     * over it. The claim counters are read outside the tail's window: every scrape of /metrics
     * starts the loop-delay window afresh.
     */
    const dispatchWithTail = async (among: FleetAgent[]) => {
      const claimsBefore = await metric('compute_claims_total', { after: 'wake' });
      const handedBefore = await metric('compute_claims_total', { outcome: 'handed' });
      const { result, tail } = await oursTail(api.url!, () => dispatch(among));
      const claims = (await metric('compute_claims_total', { after: 'wake' })) - claimsBefore;
      const handed = (await metric('compute_claims_total', { outcome: 'handed' })) - handedBefore;
      note(`  handed to a waiting poll as the run started: ${handed} of ${JOBS}`);
      note(line('  submit answered', summarize(result.parts.answered)));
      note(line('  to a slot (one agent matches)', summarize(result.parts.bySlot)));
      note(line('  to a zone (a quarter match)', summarize(result.parts.byZone)));
      note(`  ${describeTail('api', [tail])}`);
      return { latencies: summarize(result.latencies), claimsPerJob: claims / JOBS };
    };

    note('10 agents waiting: dispatch baseline …');
    const few = agents.slice(0, 10);
    await start(0, 10);
    await waitingFor(api.url!, 10);
    const baseline = await dispatchWithTail(few);
    note(line('dispatch to the named agent, 10 agents', baseline.latencies));

    note(`${AGENTS} agents waiting …`);
    await start(10, AGENTS);
    await fleet.ask({ op: 'beat' });
    const waiting = await waitingFor(api.url!, AGENTS);
    note(
      `${waiting} polls waiting; API resident memory ${mib(await metric('compute_process_resident_memory_bytes'))} MiB`,
    );
    // Each first poll's wait was spread over 30 s: by then their renewals are too.
    await sleep(30_000);

    note(`idle for ${IDLE_S} s: heartbeats every 30 s and polls renewed every 30 s …`);
    const named = { [api.pid]: 'api', [worker.pid]: 'worker', [fleet.pid]: 'the agents', [process.pid]: 'the bench' };
    const pgBefore = await postgresCounters(stack.db);
    await stack.db.raw('SELECT pg_stat_statements_reset()');
    const before = await startClaims();
    const load = watchLoad(undefined, named);
    const cpuBefore = cpuMsOf(api.pid);
    const threadsBefore = threadCpuMsOf(api.pid);
    const beatsBefore = (await fleet.ask({ op: 'count' })).beats;
    const from = nowMs();
    const fromUs = process.hrtime.bigint() / 1000n;
    await sleep(IDLE_S * 1000);
    const seconds = (nowMs() - from) / 1000;
    if (profileDir) {
      const window = { startUs: String(fromUs), endUs: String(process.hrtime.bigint() / 1000n) };
      fs.writeFileSync(path.join(profileDir, 'idle-window.json'), JSON.stringify(window));
    }
    const idleCpuPct = ((cpuMsOf(api.pid) - cpuBefore) / (seconds * 1000)) * 100;
    const threadPct = [...threadCpuMsOf(api.pid)].map(
      ([tid, ms]) => [tid, ((ms - (threadsBefore.get(tid) ?? 0)) / (seconds * 1000)) * 100] as const,
    );
    const helpers = threadPct.filter(([tid, pct]) => tid !== api.pid && pct >= 0.1).map(([, pct]) => pct);
    const beats = ((await fleet.ask({ op: 'count' })).beats - beatsBefore) / seconds;
    for (const l of load.stop()) note(l);
    note(
      `idle: the API's main thread ${(threadPct.find(([tid]) => tid === api.pid)?.[1] ?? NaN).toFixed(1)}% of one core, its ${helpers.length} busy helper threads (V8's GC, libuv) ${helpers.reduce((a, b) => a + b, 0).toFixed(1)}%: ${helpers
        .sort((a, b) => b - a)
        .map((p) => p.toFixed(1))
        .join(', ')}`,
    );
    const pgAfter = await postgresCounters(stack.db);
    const after = await startClaims();
    const starts = (after.starts - before.starts) / seconds;
    const skipped = (after.skipped - before.skipped) / seconds;
    const pgTxPerS = (pgAfter.xacts - pgBefore.xacts) / seconds;
    note(
      `idle: API ${idleCpuPct.toFixed(1)}% of one core; PostgreSQL ${pgTxPerS.toFixed(0)} transactions/s, ${((pgAfter.writes - pgBefore.writes) / seconds).toFixed(0)} row writes/s; ${starts.toFixed(0)} polls arriving/s (${(starts - skipped).toFixed(0)} empty claims, ${skipped.toFixed(0)} skipped), ${beats.toFixed(0)} heartbeats/s`,
    );

    note('idle: the statements run most often, per second:');
    for (const l of await busiestStatements(stack.db, seconds)) note(`  ${l}`);

    note(`${AGENTS} agents waiting: dispatch …`);
    const deep = await dispatchWithTail(agents);
    note(line(`dispatch to the named agent, ${AGENTS} agents`, deep.latencies));
    const { refused } = await fleet.ask({ op: 'stop' });
    await fleet.stop();
    note(
      `claims run after wakes per job: ${deep.claimsPerJob.toFixed(2)} (with 10 agents: ${baseline.claimsPerJob.toFixed(2)}); results the API refused: ${refused}`,
    );

    await api.stop();
    await worker.stop();
    // The floor under the idle figure: the same fleet held by a bare server, the machine otherwise as quiet.
    const bareIdle = await bareIdleCpuPct(stack, agents, IDLE_S, note);
    const ratio = deep.latencies.p50 / baseline.latencies.p50;
    return `fleet agents=${waiting} kib_per_poll=${heap.kibPerPoll.toFixed(1)} ratio_dispatch_p50=${ratio.toFixed(2)} claims_per_job=${deep.claimsPerJob.toFixed(2)} idle_cpu_pct=${idleCpuPct.toFixed(1)} bare_idle_cpu_pct=${bareIdle.toFixed(1)} idle_pg_tx_per_s=${pgTxPerS.toFixed(0)} dispatch_p99_ms=${deep.latencies.p99.toFixed(0)}`;
  },
  { inProcess: false, postgresSettings: { shared_preload_libraries: 'pg_stat_statements' } },
);
