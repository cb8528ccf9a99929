import fs from 'node:fs';
import path from 'node:path';
import { type ManagedChild, startChild } from '../../src/stack/child';
import { testEnv } from './env';
import { sleep } from './http';

const ROOT = path.resolve(__dirname, '../..');

/** `npm run worker` as its own process tree on `taskQueue`; resolves once it polls, with its health server's URL. */
export async function spawnWorker(
  taskQueue: string,
  name: string,
  env: Record<string, string> = {},
): Promise<ManagedChild & { url: string; logFile: string }> {
  const logFile = path.join(testEnv().dataDir, 'logs', `${name}.log`);
  const child = startChild({
    command: process.execPath,
    args: [require.resolve('tsx/cli'), 'src/main/worker.ts'],
    cwd: ROOT,
    // The suite's own worker runs the meter; one on a queue of its own leaves the schedules alone.
    env: { ...testEnv().vars, LOG_LEVEL: 'info', TEMPORAL_TASK_QUEUE: taskQueue, METER_TICK_SECONDS: '0', ...env },
    logFile,
  });
  const deadline = Date.now() + 60_000;
  while (!fs.existsSync(logFile) || !fs.readFileSync(logFile, 'utf8').includes('worker running')) {
    if (Date.now() > deadline) throw new Error(`worker ${name} never started; see ${logFile}`);
    await sleep(100);
  }
  const running = fs
    .readFileSync(logFile, 'utf8')
    .split('\n')
    .find((l) => l.includes('worker running'))!;
  return Object.assign(child, { url: JSON.parse(running).health as string, logFile });
}
