import path from 'node:path';
import { startJaeger } from '../src/stack/jaeger';
import { freePort } from '../src/stack/ports';
import { ensureTool } from '../src/stack/tools';
import { loadToolsDir } from '../src/config';
import { startComposeShape } from './compose-shape';
import { watchLoad } from './load';
import { startLoadGenerator } from './load-process';
import type { BareStack } from './stack';
import { type Summary, summarize } from './stats';

// What tracing costs (docs/guides/tracing.md): two API + worker pairs as compose runs them, one
// exporting every span to a real Jaeger, the other with tracing off, driven by one load
// generator; latency rounds interleaved, throughput rounds alternated untraced, traced, traced,
// untraced, with the CPU of both processes of each pair per job.

type Side = 'untraced' | 'traced';
const ORDER: Side[] = ['untraced', 'traced', 'traced', 'untraced'];

export interface TracingCost {
  latency: Record<Side, Summary>;
  perSecond: Record<Side, number>;
  /** API + worker CPU per job, ms. */
  cpuMsPerJob: Record<Side, number>;
  /** traced ÷ untraced. */
  ratioP50: number;
  ratioP99: number;
  ratioThroughput: number;
  ratioCpu: number;
}

export async function tracingCost(
  stack: BareStack & { userKey: string },
  o: { rounds: number; iterations: number; jobs: number; inFlight: number },
): Promise<TracingCost> {
  const logs = path.join(stack.dataDir, 'logs');
  const jaeger = await startJaeger({
    binary: await ensureTool('jaeger', loadToolsDir()),
    otlpPort: await freePort(),
    queryPort: await freePort(),
    queryGrpcPort: await freePort(),
    logFile: path.join(logs, 'jaeger.log'),
  });
  const stops: Array<() => Promise<void>> = [jaeger.stop];
  try {
    const pairs = {
      untraced: await startComposeShape(stack),
      traced: await startComposeShape(stack, { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint }),
    };
    stops.push(pairs.untraced.stop, pairs.traced.stop);
    const load = await startLoadGenerator(logs);
    stops.push(load.stop);
    const sides = Object.keys(pairs) as Side[];
    const register = (side: Side, name: string) => pairs[side].api.register(stack.userKey, `bench-${side}-${name}`);
    const latencyNode = {
      untraced: await register('untraced', 'latency'),
      traced: await register('traced', 'latency'),
    };
    const nodes = Object.fromEntries(
      await Promise.all(
        sides.map(async (s) => [s, await Promise.all([1, 2, 3, 4].map((i) => register(s, `tp-${i}`)))] as const),
      ),
    ) as Record<Side, Awaited<ReturnType<typeof register>>[]>;

    const samples: Record<Side, number[]> = { untraced: [], traced: [] };
    for (const side of sides)
      await load.latency(pairs[side].url, {
        userKey: stack.userKey,
        node: latencyNode[side],
        warmup: 20,
        iterations: 0,
      });
    for (let round = 0; round < o.rounds; round++) {
      for (const side of round % 2 ? [...sides].reverse() : sides) {
        const got = await load.latency(pairs[side].url, {
          userKey: stack.userKey,
          node: latencyNode[side],
          warmup: 0,
          iterations: o.iterations,
        });
        samples[side].push(...got.map((x) => x.polledAt - x.sentAt));
      }
    }

    const done: Record<Side, { jobs: number; ms: number; cpu: number }> = {
      untraced: { jobs: 0, ms: 0, cpu: 0 },
      traced: { jobs: 0, ms: 0, cpu: 0 },
    };
    const perRound = Math.ceil(o.jobs / 2);
    for (const side of ORDER) {
      const cpu = watchLoad(undefined, pairs[side].pids);
      const tp = await load.throughput(pairs[side].url, {
        userKey: stack.userKey,
        nodes: nodes[side],
        jobs: perRound,
        inFlight: o.inFlight,
        maxJobs: 50,
      });
      cpu.stop(perRound);
      const ours = Object.entries(cpu.perJob(1)).filter(([group]) => /API process|worker process/.test(group));
      done[side].jobs += perRound;
      done[side].ms += tp.elapsedMs;
      done[side].cpu += ours.reduce((s, [, ms]) => s + ms, 0);
    }
    const latency = { untraced: summarize(samples.untraced), traced: summarize(samples.traced) };
    const perSecond = {
      untraced: (done.untraced.jobs / done.untraced.ms) * 1000,
      traced: (done.traced.jobs / done.traced.ms) * 1000,
    };
    const cpuMsPerJob = {
      untraced: done.untraced.cpu / done.untraced.jobs,
      traced: done.traced.cpu / done.traced.jobs,
    };
    return {
      latency,
      perSecond,
      cpuMsPerJob,
      ratioP50: latency.traced.p50 / latency.untraced.p50,
      ratioP99: latency.traced.p99 / latency.untraced.p99,
      ratioThroughput: perSecond.traced / perSecond.untraced,
      ratioCpu: cpuMsPerJob.traced / cpuMsPerJob.untraced,
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}
