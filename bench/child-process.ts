import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BUILT_ROOT, buildService } from './stack';

// A bench's helper process (a load generator, a fleet of agents): compiled beside the service and
// started with the flags our API gets, so the load it puts on the service is not charged to the
// bench's own event loop. It is asked one thing at a time over the IPC channel: a request carries
// an `id`, its answer the same `id`; messages without one are the child's own news.

export interface BenchChild<Request, Answer> {
  pid: number;
  ask(request: Request): Promise<Answer>;
  stop(): Promise<void>;
}

/**
 * Forks `bench/<name>.js` (compiled), its output in `<logDir>/<name>.log`, and waits for its first
 * message. An answer with `error` rejects; `onNews` gets the messages that answer nothing.
 */
export async function startBenchChild<Request, Answer extends { id: number; error?: string }>(
  name: string,
  logDir: string,
  onNews: (message: Record<string, unknown>) => void = () => undefined,
): Promise<BenchChild<Request, Answer>> {
  await buildService();
  fs.mkdirSync(logDir, { recursive: true });
  const log = fs.openSync(path.join(logDir, `${name}.log`), 'a');
  const child: ChildProcess = fork(path.join(BUILT_ROOT, `bench/${name}.js`), [], {
    execArgv: ['--max-semi-space-size=64'],
    serialization: 'advanced',
    stdio: ['ignore', log, log, 'ipc'],
  });
  fs.closeSync(log);
  const pending = new Map<number, { resolve: (a: Answer) => void; reject: (err: Error) => void }>();
  let next = 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const p of pending.values()) p.reject(new Error(`${name} exited; see ${logDir}`));
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('error', reject);
    void exited.then(() => reject(new Error(`${name} did not start; see ${logDir}`)));
  });
  child.on('message', (m: Answer | Record<string, unknown>) => {
    if (typeof m.id !== 'number') return onNews(m);
    const a = m as Answer;
    const p = pending.get(a.id);
    pending.delete(a.id);
    if (a.error) p?.reject(new Error(`${name}: ${a.error}`));
    else p?.resolve(a);
  });
  return {
    pid: child.pid!,
    ask: (request) =>
      new Promise<Answer>((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        child.send({ ...request, id });
      }),
    async stop() {
      child.disconnect();
      await exited;
    },
  };
}
