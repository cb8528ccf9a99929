/**
 * `npm run bench:api`: what one API request costs next to its own query. Our API (`npm run api`,
 * a process of its own) and a bare node:http + pg server doing the same statement (a process of
 * its own, bench/bare-api-server.ts) are measured in the same run, on the same PostgreSQL, for
 * three operations: `jobs/retrieve`, `jobs/list` (50 jobs) and `nodes/heartbeat` (no running
 * jobs). Our API runs as configured by default, with authentication and the rate limiter (at
 * budgets the load cannot reach).
 *
 * - closed loop: 50 connections for --seconds (default 5), rounds interleaved bare / ours
 *   (--rounds, default 3): maximum throughput;
 * - open loop: requests due at half the bare server's maximum, whatever the answers, latency from
 *   when each was due; interleaved the same way.
 * - PostgreSQL's own count of transactions and row writes per request, and CPU per request of
 *   each server process.
 * - for context, when our maximum is below the open loop's rate: both servers again at half our
 *   own maximum, where our tail is its stalls rather than a growing queue.
 * - where each server's open-loop tail goes: its event-loop delay over the round (p50, p99, max),
 *   its GC pauses, and (ours) its waits for a pooled database connection (bench/tail.ts).
 *
 * Options: --seconds, --rounds, --only=jobs/retrieve,… (some operations); PROFILE_DIR=dir writes CPU
 * profiles of our API there (and of the bare server in dir/bare).
 *
 * Last line: `api ratio_throughput=… ratio_p99=…`, the worst of the three operations (throughput
 * ours/bare, p99 at the fixed rate ours/bare). Targets: ratio_throughput >= 0.5, ratio_p99 <= 1.5.
 */
import path from 'node:path';
import type { Knex } from 'knex';
import { createApiKey } from '../src/auth/api-keys';
import { newId } from '../src/shared/ids';
import { startChild } from '../src/stack/child';
import { freePort } from '../src/stack/ports';
import { type LoadResult, type Target, closedLoop, openLoop } from './http-load';
import { cpuMsOf } from './load';
import { postgresCounters } from './postgres-counters';
import { BUILT_ROOT, type BareStack, option, runBench, spawnService } from './stack';
import { ms, summarize } from './stats';
import { type TailFigures, bareTail, describeTail, oursTail } from './tail';
import { NODE_FLAGS } from '../src/runtime/node-flags';

const CONNECTIONS = 50;
const JOBS = 1000;

const say = (line = '') => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`${line}\n`);

async function seed(stack: BareStack) {
  const db = stack.db;
  const rows = Array.from({ length: JOBS }, (_, i) => ({
    id: newId('job'),
    workspace_id: stack.workspaceId,
    type: 'COMMAND',
    command: `echo job ${i}`,
    env: '{}',
    labels: JSON.stringify({ bench: 'api', n: String(i % 10) }),
    selector: '{}',
    retry: JSON.stringify({ maxAttempts: 1, backoffSeconds: 10 }),
    timeout_seconds: 3600,
    state: 'SUCCEEDED',
    workflow_started: true,
    exit_code: 0,
    created_at: new Date(Date.now() - (JOBS - i) * 1000),
    available_at: new Date(),
  }));
  for (let i = 0; i < rows.length; i += 200) await db('jobs').insert(rows.slice(i, i + 200));
  const agentId = newId('agent');
  await db('agents').insert({
    id: agentId,
    workspace_id: stack.workspaceId,
    name: 'bench',
    labels: '{}',
    capabilities: '{}',
  });
  const node = await createApiKey(db, { workspaceId: stack.workspaceId, name: 'node bench', kind: 'node', agentId });
  return { jobId: rows[JOBS / 2].id, agentId, nodeKey: node.key };
}

interface Side {
  name: 'bare' | 'ours';
  pid: number;
  target: Target;
}

async function measure(side: Side, db: Knex, run: () => Promise<LoadResult>) {
  const cpu0 = cpuMsOf(side.pid);
  const pg0 = await postgresCounters(db);
  const result = await run();
  if (result.errors > 0)
    throw new Error(`${side.name} ${side.target.path}: ${result.errors} failed requests, first: ${result.firstError}`);
  const cpu = cpuMsOf(side.pid) - cpu0;
  await new Promise((r) => setTimeout(r, 1100)); // idle backends flush their counts within a second
  const pg1 = await postgresCounters(db);
  // The two counter reads are transactions of their own.
  return {
    result,
    cpuPerRequest: cpu / result.requests,
    xacts: (pg1.xacts - pg0.xacts - 2) / result.requests,
    writes: (pg1.writes - pg0.writes) / result.requests,
  };
}

async function run(stack: BareStack, o: { seconds: number; rounds: number }): Promise<string> {
  const { jobId, agentId, nodeKey } = await seed(stack);
  note('starting our API (npm run api) and the bare server …');
  // PROFILE_DIR=/some/dir writes a V8 CPU profile of our API there (open it in Chrome's DevTools).
  const api = await spawnService(stack, 'api', {}, [
    ...(process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : []),
    ...(process.env.API_NODE_ARGS ? process.env.API_NODE_ARGS.split(' ') : []),
  ]);
  const barePort = await freePort();
  const bare = startChild({
    command: process.execPath,
    args: [
      // Compiled and with the flags our API gets (spawnService built both).
      ...NODE_FLAGS.api,
      ...(process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}/bare`] : []),
      path.join(BUILT_ROOT, 'bench/bare-api-server.js'),
    ],
    env: {
      DATABASE_URL: stack.databaseUrl,
      PORT: String(barePort),
      POOL_MAX: String(stack.config.dbPoolMax),
      WORKSPACE_ID: stack.workspaceId,
    },
    logFile: `${stack.dataDir}/logs/bare-api.log`,
  });
  const bareUrl = `http://127.0.0.1:${barePort}`;
  try {
    for (
      const started = Date.now();
      !(await fetch(`${bareUrl}/list`, { method: 'POST', body: '{}' }).then(
        (r) => r.ok,
        () => false,
      ));
    ) {
      if (Date.now() - started > 30_000) throw new Error('the bare server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const operations = [
      {
        name: 'jobs/retrieve',
        ours: '/api/compute/jobs/retrieve',
        bare: '/retrieve',
        body: { job_id: jobId },
        key: stack.userKey,
      },
      { name: 'jobs/list', ours: '/api/compute/jobs/list', bare: '/list', body: {}, key: stack.userKey },
      {
        name: 'nodes/heartbeat',
        ours: '/api/compute/nodes/heartbeat',
        bare: '/heartbeat',
        body: { nodeId: agentId },
        key: nodeKey,
      },
    ];
    const only = process.argv
      .find((a) => a.startsWith('--only='))
      ?.slice('--only='.length)
      .split(',');
    const figures: Array<{ name: string; ratioThroughput: number; ratioP99: number }> = [];
    for (const op of operations.filter((x) => !only || only.includes(x.name))) {
      const sides: Side[] = [
        { name: 'bare', pid: bare.pid, target: { url: bareUrl, path: op.bare, body: op.body, headers: {} } },
        {
          name: 'ours',
          pid: api.pid,
          target: { url: api.url!, path: op.ours, body: op.body, headers: { 'X-API-Key': op.key } },
        },
      ];
      note(`${op.name}: warm-up, then ${o.rounds} closed-loop rounds of ${o.seconds} s each side …`);
      for (const side of sides) await closedLoop(side.target, { connections: CONNECTIONS, durationMs: 2000 });
      const closed = {
        bare: [] as Awaited<ReturnType<typeof measure>>[],
        ours: [] as Awaited<ReturnType<typeof measure>>[],
      };
      for (let r = 0; r < o.rounds; r++) {
        for (const side of sides)
          closed[side.name].push(
            await measure(side, stack.db, () =>
              closedLoop(side.target, { connections: CONNECTIONS, durationMs: o.seconds * 1000 }),
            ),
          );
      }
      const max = (name: 'bare' | 'ours') =>
        closed[name].reduce((s, m) => s + m.result.requests, 0) /
        (closed[name].reduce((s, m) => s + m.result.elapsedMs, 0) / 1000);
      const rate = Math.round(max('bare') / 2);
      note(`${op.name}: ${o.rounds} open-loop rounds at ${rate} requests/s …`);
      const open = {
        bare: [] as Awaited<ReturnType<typeof measure>>[],
        ours: [] as Awaited<ReturnType<typeof measure>>[],
      };
      const tails = { bare: [] as TailFigures[], ours: [] as TailFigures[] };
      for (let r = 0; r < o.rounds; r++) {
        for (const side of sides) {
          const load = () => openLoop(side.target, { rate, durationMs: o.seconds * 1000, maxConnections: 256 });
          const watched = side.name === 'ours' ? () => oursTail(api.url!, load) : () => bareTail(bareUrl, load);
          open[side.name].push(
            await measure(side, stack.db, async () => {
              const { result, tail } = await watched();
              tails[side.name].push(tail);
              return result;
            }),
          );
        }
      }
      say(`== ${op.name} ==`);
      const rows: Record<string, { throughput: number; p50: number; p99: number; closedP99: number }> = {};
      for (const name of ['bare', 'ours'] as const) {
        const all = closed[name];
        const mean = (f: (m: (typeof all)[number]) => number) => all.reduce((s, m) => s + f(m), 0) / all.length;
        const closedLat = summarize(all.flatMap((m) => m.result.latencies));
        const openLat = summarize(open[name].flatMap((m) => m.result.latencies));
        rows[name] = { throughput: max(name), p50: openLat.p50, p99: openLat.p99, closedP99: closedLat.p99 };
        say(
          `${name.padEnd(5)} closed loop (${CONNECTIONS} connections): ${max(name).toFixed(0)} req/s ` +
            `(rounds ${all.map((m) => m.result.perSecond.toFixed(0)).join(' / ')}), p50 ${ms(closedLat.p50)} p99 ${ms(closedLat.p99)} ms; ` +
            `CPU ${mean((m) => m.cpuPerRequest).toFixed(3)} ms/request; PostgreSQL ${mean((m) => m.xacts).toFixed(2)} transactions and ${mean((m) => m.writes).toFixed(2)} row writes per request`,
        );
        say(
          `${name.padEnd(5)} open loop at ${rate}/s: p50 ${ms(openLat.p50)} p90 ${ms(openLat.p90)} p99 ${ms(openLat.p99)} max ${ms(openLat.max)} ms (n=${openLat.n})`,
        );
      }
      say(`where the open loop's tail goes (each server's own figures over its rounds):`);
      for (const name of ['bare', 'ours'] as const) say(`  ${describeTail(name, tails[name])}`);
      // Context, not the target: at a rate our server carries too (half its own maximum), what is
      // left of the tail is its stalls, not a queue it cannot drain.
      const carried = Math.round(max('ours') / 2);
      if (carried < rate) {
        const p99At = { bare: [] as number[], ours: [] as number[] };
        for (let r = 0; r < o.rounds; r++) {
          for (const side of sides)
            p99At[side.name].push(
              ...(await openLoop(side.target, { rate: carried, durationMs: o.seconds * 1000, maxConnections: 256 }))
                .latencies,
            );
        }
        const at = { bare: summarize(p99At.bare), ours: summarize(p99At.ours) };
        say(
          `context: both at ${carried}/s (half our maximum): p99 bare ${ms(at.bare.p99)} ours ${ms(at.ours.p99)} ms (ratio ${(at.ours.p99 / at.bare.p99).toFixed(2)}), p50 ${ms(at.bare.p50)} / ${ms(at.ours.p50)} ms`,
        );
      }
      const ratioThroughput = rows.ours.throughput / rows.bare.throughput;
      const ratioP99 = rows.ours.p99 / rows.bare.p99;
      say(
        `ratio: throughput ${ratioThroughput.toFixed(2)}, p99 at ${rate}/s ${ratioP99.toFixed(2)} (p50 ${(rows.ours.p50 / rows.bare.p50).toFixed(2)})`,
      );
      say();
      figures.push({ name: op.name, ratioThroughput, ratioP99 });
    }
    const worstThroughput = figures.reduce((a, b) => (b.ratioThroughput < a.ratioThroughput ? b : a));
    const worstP99 = figures.reduce((a, b) => (b.ratioP99 > a.ratioP99 ? b : a));
    say(`worst throughput ratio: ${worstThroughput.name}; worst p99 ratio: ${worstP99.name}`);
    return `api ratio_throughput=${worstThroughput.ratioThroughput.toFixed(2)} ratio_p99=${worstP99.ratioP99.toFixed(2)}`;
  } finally {
    await bare.stop();
    await api.stop();
  }
}

runBench((stack) => run(stack, { seconds: option('seconds', 5), rounds: option('rounds', 3) }), { inProcess: false });
