import fs from 'node:fs';
import path from 'node:path';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { type ManagedChild, startChild } from '../../src/stack/child';
import { waitFor } from './agents';
import { quietLog, testEnv } from './env';

const ROOT = path.resolve(__dirname, '../..');

/**
 * `src/main/api.ts` as a process of its own (tsx loaded in it, so the pid is the server's), on a
 * fixed port so a restart comes back at the same URL.
 */
export async function spawnApi(port: number, env: Record<string, string>): Promise<ManagedChild> {
  const child = startChild({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/main/api.ts'],
    cwd: ROOT,
    env: { ...testEnv().vars, PORT: String(port), ...env },
    logFile: path.join(testEnv().dataDir, 'logs', `api-${port}.log`),
  });
  await waitFor(
    'the API to listen',
    () =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    60_000,
  );
  return child;
}

/** Current and peak resident memory of a process, in MiB, from /proc. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

/**
 * For a describe block: API instances of its own on the suite's stack (API only, settings
 * overridden by `env`), each stopped after the test that made it.
 */
export function apisPerTest(): (env?: Record<string, string>) => Promise<ServiceProcess> {
  const apis: ServiceProcess[] = [];
  afterEach(async () => {
    for (const api of apis.splice(0)) await api.stop();
  });
  return async (env = {}) => {
    const api = await startServiceProcess({
      config: testEnv().configWith(env),
      log: quietLog,
      api: true,
      worker: false,
    });
    apis.push(api);
    return api;
  };
}
