import type { Answer, LoadCall } from './load-generator';
import type { DispatchSample, ThroughputResult } from './service';
import { startBenchChild } from './child-process';

// The parent's side of bench/load-generator.ts: the load generator as a process of its own, asked
// for one latency round or throughput run at a time.

type Args<Op extends LoadCall['op']> = Extract<LoadCall, { op: Op }>['args'];

export interface LoadGenerator {
  pid: number;
  /** One latency round against the service at `url` (submit sent → poll answer with the job). */
  latency(url: string, args: Args<'latency'>): Promise<DispatchSample[]>;
  /** One throughput run; a job is done when its result is answered. */
  throughput(url: string, args: Args<'throughput'>): Promise<ThroughputResult>;
  /** 503s with Retry-After its clients waited out so far. */
  shed(): number;
  stop(): Promise<void>;
}

export async function startLoadGenerator(logDir: string): Promise<LoadGenerator> {
  const child = await startBenchChild<LoadCall, Answer>('load-generator', logDir);
  let shed = 0;
  const ask = async (request: LoadCall) => {
    const a = await child.ask(request);
    shed = Math.max(shed, a.shed);
    return a;
  };
  return {
    pid: child.pid,
    latency: async (url, args) => (await ask({ op: 'latency', url, args })).samples!,
    throughput: async (url, args) => (await ask({ op: 'throughput', url, args })).result!,
    shed: () => shed,
    stop: () => child.stop(),
  };
}
