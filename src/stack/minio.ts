import { startChild } from './child';
import { assertPortFree } from './ports';

export interface MinioOptions {
  binary: string;
  dataDir: string;
  port: number;
  consolePort: number;
  accessKey: string;
  secretKey: string;
  logFile: string;
  readyTimeoutMs?: number;
}

export interface RunningMinio {
  endpoint: string;
  consoleUrl: string;
  /** Its process group, for a fault test that kills it outright. */
  pid: number;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Runs a single-drive MinIO server on 127.0.0.1; ready once its liveness probe answers 200. */
export async function startMinio(opts: MinioOptions): Promise<RunningMinio> {
  const endpoint = `http://127.0.0.1:${opts.port}`;
  await assertPortFree('127.0.0.1', opts.port);
  const child = startChild({
    command: opts.binary,
    args: [
      'server',
      opts.dataDir,
      '--address',
      `127.0.0.1:${opts.port}`,
      '--console-address',
      `127.0.0.1:${opts.consolePort}`,
      '--quiet',
    ],
    // Credentials reach MinIO through its own environment, the only way it takes root keys.
    env: {
      MINIO_ROOT_USER: opts.accessKey,
      MINIO_ROOT_PASSWORD: opts.secretKey,
      MINIO_BROWSER_REDIRECT: 'off', // no redirect of the API port's browser hits to the console
      MINIO_UPDATE: 'off',
    },
    logFile: opts.logFile,
  });
  const stop = () => child.stop();
  try {
    await waitForLive(endpoint, child.exited, opts.readyTimeoutMs ?? 60_000, opts.logFile);
  } catch (err) {
    await stop();
    throw err;
  }
  return { endpoint, consoleUrl: `http://127.0.0.1:${opts.consolePort}`, pid: child.pid, exited: child.exited, stop };
}

async function waitForLive(endpoint: string, exited: Promise<number | null>, timeoutMs: number, logFile: string) {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  exited.then(
    () => (gone = true),
    () => (gone = true),
  );
  for (;;) {
    if (gone) throw new Error(`MinIO exited before it was ready; see ${logFile}`);
    try {
      const res = await fetch(`${endpoint}/minio/health/live`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`MinIO at ${endpoint} not ready after ${timeoutMs} ms; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
