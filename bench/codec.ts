import { createLogger } from '../src/logging/logger';
import { startServiceProcess } from '../src/runtime/service-process';
import { apiClient } from './api';
import { serviceThroughput } from './service';
import type { BenchStack } from './stack';

/** Throughput rounds per side, alternated so both see the machine in the same state. */
const ROUNDS = 2;

export interface CodecCost {
  sealed: number;
  plain: number;
  /** sealed ÷ plain jobs per second (target ≥ 0.95). */
  ratio: number;
}

/**
 * The payload codec's price: the service loop's throughput with it (the bench's service) and
 * without it (a second API and worker in this process, PAYLOAD_CODEC=off, on a task queue of
 * their own), in alternating rounds of `jobs` each.
 */
export async function codecCost(o: { stack: BenchStack; jobs: number; inFlight: number }): Promise<CodecCost> {
  const { stack } = o;
  const base = stack.config;
  const plain = await startServiceProcess({
    config: {
      ...base,
      http: { ...base.http, port: 0 },
      worker: { ...base.worker, port: 0 },
      temporal: {
        ...base.temporal,
        taskQueue: 'bench-plain',
        webhookTaskQueue: 'bench-plain-webhooks',
        payloadCodec: false,
      },
      // The meter's schedule stays with the bench's own service.
      billing: { ...base.billing, meterTickSeconds: 0 },
    },
    log: createLogger(base.logLevel, 'bench-plain'),
    api: true,
    worker: true,
  });
  try {
    const sides = [
      { name: 'sealed', api: apiClient(stack.url), rates: [] as number[] },
      { name: 'plain', api: apiClient(plain.url!), rates: [] as number[] },
    ];
    const nodes = await Promise.all(
      sides.map((s) =>
        Promise.all(
          [1, 2, 3, 4].map((i) =>
            s.api.register(stack.userKey, `bench-codec-${s.name}-${i}`, { role: `codec-${s.name}` }),
          ),
        ),
      ),
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, side] of sides.entries()) {
        const tp = await serviceThroughput({
          api: side.api,
          databaseUrl: stack.databaseUrl,
          userKey: stack.userKey,
          nodes: nodes[i],
          jobs: o.jobs,
          inFlight: o.inFlight,
          maxJobs: 50,
          timeoutMs: 150_000,
        });
        side.rates.push(tp.perSecond);
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const sealed = mean(sides[0].rates);
    const plainRate = mean(sides[1].rates);
    return { sealed, plain: plainRate, ratio: sealed / plainRate };
  } finally {
    await plain.stop();
  }
}
