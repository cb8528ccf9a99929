import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Answer, LoadCall } from './load-generator';
import type { DispatchSample, ThroughputResult } from './service';
import { BUILT_ROOT, buildService } from './stack';

// The parent's side of bench/load-generator.ts: the load generator as a process of its own,
// compiled and started with the flags our API gets, asked for one latency round or throughput
// run at a time over the IPC channel.

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
  await buildService();
  fs.mkdirSync(logDir, { recursive: true });
  const log = fs.openSync(path.join(logDir, 'load-generator.log'), 'a');
  const child: ChildProcess = fork(path.join(BUILT_ROOT, 'bench/load-generator.js'), [], {
    execArgv: ['--max-semi-space-size=64'],
    serialization: 'advanced',
    stdio: ['ignore', log, log, 'ipc'],
  });
  fs.closeSync(log);
  const pending = new Map<number, { resolve: (a: Answer) => void; reject: (err: Error) => void }>();
  let shed = 0;
  let next = 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const p of pending.values()) p.reject(new Error(`the load generator exited; see ${logDir}`));
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('error', reject);
    void exited.then(() => reject(new Error(`the load generator did not start; see ${logDir}`)));
  });
  child.on('message', (a: Answer) => {
    shed = Math.max(shed, a.shed);
    const p = pending.get(a.id);
    pending.delete(a.id);
    if (a.error) p?.reject(new Error(`load generator: ${a.error}`));
    else p?.resolve(a);
  });
  const ask = (request: LoadCall) =>
    new Promise<Answer>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      child.send({ ...request, id });
    });
  return {
    pid: child.pid!,
    latency: async (url, args) => (await ask({ op: 'latency', url, args })).samples!,
    throughput: async (url, args) => (await ask({ op: 'throughput', url, args })).result!,
    shed: () => shed,
    async stop() {
      child.disconnect();
      await exited;
    },
  };
}
