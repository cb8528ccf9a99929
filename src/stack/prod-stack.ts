import fs from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startChild } from './child';
import { type Balancer, startBalancer } from './gateway';
import { type RunningMinio, startMinio } from './minio';
import { freePort, waitForPort } from './ports';
import { type RunningPostgres, startPostgres } from './postgres';
import { startStripeMock } from './stripe-mock';
import { type Supervised, supervise } from './supervisor';
import { type TemporalCluster, startTemporalClusterOn } from './temporal-cluster';
import { ensureTool } from './tools';
import { NODE_FLAGS } from '../runtime/node-flags';

// The service as docker-compose.yml runs it, without containers: PostgreSQL (the app's database
// and Temporal's two), the Temporal server on it with its UI, MinIO, stripe-mock, and two API and
// two worker processes apart behind a gateway. Every process of ours and Temporal's is restarted
// when it dies, as compose's `restart: unless-stopped` does; PostgreSQL and MinIO can be crashed
// and brought back on the same data. `npm run stack:prod` and the fault soak run it.

const ROOT = path.resolve(__dirname, '../..');
const MINIO = { accessKey: 'compute-dev', secretKey: 'compute-dev-secret' };
const PG = { user: 'postgres', password: 'postgres' };

export interface ProdStackOptions {
  dataDir: string;
  toolsDir: string;
  ports: {
    gateway: number;
    postgres: number;
    temporal: number;
    temporalUi?: number;
    minio: number;
    minioConsole: number;
    stripeMock: number;
  };
  apis?: number;
  workers?: number;
  /** Settings of the API and worker processes besides the stack's addresses (the soak's timers). */
  env?: Record<string, string>;
  /** Dynamic config of the Temporal server besides deploy/'s. */
  temporalDynamicConfig?: Record<string, string | number | boolean>;
  log: (msg: string) => void;
}

/** A service the stack can crash (SIGKILL) and bring back on the same data and port. */
export interface Crashable {
  name: string;
  crash(): Promise<void>;
}

export interface ProdStack {
  /** The gateway in front of the API processes. */
  url: string;
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
  s3: { endpoint: string; accessKey: string; secretKey: string; consoleUrl: string };
  stripeUrl: string;
  /** The environment every API and worker process runs with (a CLI or an agent may take it too). */
  vars: Record<string, string>;
  apis: Supervised[];
  workers: Supervised[];
  temporal: TemporalCluster;
  postgres: Crashable;
  minio: Crashable;
  gateway: Balancer;
  /** Starts (supervised) a process of ours with the stack's environment: `src/cli/main.ts agent …`. */
  spawn(name: string, script: string, args: string[], env?: Record<string, string>): Supervised;
  stop(): Promise<void>;
}

export async function startProdStack(opts: ProdStackOptions): Promise<ProdStack> {
  const dataDir = path.resolve(opts.dataDir);
  const logs = path.join(dataDir, 'logs');
  await fs.mkdir(logs, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    const minioBin = await ensureTool('minio', opts.toolsDir, opts.log);
    const stripeBin = await ensureTool('stripe-mock', opts.toolsDir, opts.log);

    const pgOptions = { dataDir: path.join(dataDir, 'postgres'), port: opts.ports.postgres, ...PG };
    let pg: RunningPostgres = await startPostgres(pgOptions);
    stops.push(() => pg.stop());
    const postgres: Crashable = {
      name: 'postgresql',
      async crash() {
        if (pg.pid) killHard(pg.pid, false);
        await waitUntilGone(pg.pid);
        pg = await startPostgres(pgOptions);
      },
    };

    const minioOptions = {
      binary: minioBin,
      dataDir: path.join(dataDir, 'minio'),
      port: opts.ports.minio,
      consolePort: opts.ports.minioConsole,
      ...MINIO,
      logFile: path.join(logs, 'minio.log'),
    };
    let mio: RunningMinio = await startMinio(minioOptions);
    stops.push(() => mio.stop());
    const minio: Crashable = {
      name: 'minio',
      async crash() {
        killHard(mio.pid, true);
        await mio.exited.catch(() => undefined);
        mio = await startMinio(minioOptions);
      },
    };

    // A socket a killed run left behind would stop stripe-mock binding its own.
    const httpsSocket = path.join(dataDir, 'stripe-mock-https.sock');
    await fs.rm(httpsSocket, { force: true });
    const stripe = await startStripeMock({
      binary: stripeBin,
      port: opts.ports.stripeMock,
      httpsSocket,
      logFile: path.join(logs, 'stripe-mock.log'),
    });
    stops.push(async () => {
      await stripe.stop();
      await fs.rm(httpsSocket, { force: true });
    });

    const gatewayUrl = `http://127.0.0.1:${opts.ports.gateway}`;
    const temporal = await startTemporalClusterOn({
      databaseUrl: pg.url,
      toolsDir: opts.toolsDir,
      dir: path.join(dataDir, 'temporal'),
      frontendPort: opts.ports.temporal,
      ui: opts.ports.temporalUi ? { port: opts.ports.temporalUi, codecEndpoint: `${gatewayUrl}/codec` } : undefined,
      dynamicConfig: opts.temporalDynamicConfig,
      log: opts.log,
    });
    stops.push(() => temporal.stop());

    // Bundled once: every worker loads the file, as the image's workers load theirs.
    const bundlePath = path.join(dataDir, 'workflow-bundle.js');
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../workflows'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    });
    await fs.writeFile(bundlePath, code);

    const vars: Record<string, string> = {
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      // Secrets outside production are made once and kept here: every process shares them.
      COMPUTE_DATA_DIR: dataDir,
      DATABASE_URL: pg.url,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_WORKFLOW_BUNDLE: bundlePath,
      S3_ENDPOINT: `http://127.0.0.1:${opts.ports.minio}`,
      S3_ACCESS_KEY: MINIO.accessKey,
      S3_SECRET_KEY: MINIO.secretKey,
      STRIPE_SECRET_KEY: 'sk_test_computedev',
      STRIPE_API_BASE: stripe.url,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      PUBLIC_URL: gatewayUrl,
      ...(temporal.uiUrl && { TEMPORAL_UI_URL: temporal.uiUrl }),
      ...opts.env,
    };
    const spawn = (name: string, script: string, args: string[], env: Record<string, string> = {}) => {
      const child = supervise(name, {
        command: process.execPath,
        args: [...NODE_FLAGS[script.endsWith('api.ts') ? 'api' : 'worker'], '--import', 'tsx', script, ...args],
        cwd: ROOT,
        env: { ...vars, ...env },
        logFile: path.join(logs, `${name}.log`),
        restartDelayMs: 1000,
        log: opts.log,
      });
      stops.push(() => child.stop(15_000));
      return child;
    };

    // Migrated once before any replica starts, as compose's one-shot `migrate` does.
    await runOnce('migrate', ['--import', 'tsx', 'src/main/migrate.ts'], vars, path.join(logs, 'migrate.log'));
    const workers = Array.from({ length: opts.workers ?? 2 }, (_, i) =>
      spawn(`worker-${i + 1}`, 'src/main/worker.ts', [], { WORKER_PORT: '0', TEMPORAL_METRICS_PORT: '0' }),
    );
    const apiPorts = await Promise.all(Array.from({ length: opts.apis ?? 2 }, () => freePort()));
    const apis = apiPorts.map((port, i) => spawn(`api-${i + 1}`, 'src/main/api.ts', [], { PORT: String(port) }));
    await Promise.all(apiPorts.map((port) => waitForPort('127.0.0.1', port, 120_000)));
    const gateway = await startBalancer(
      apiPorts.map((port) => `http://127.0.0.1:${port}`),
      { port: opts.ports.gateway },
    );
    stops.push(() => gateway.close()); // first to stop: no request reaches an API on its way out
    await waitForWorkers(path.join(logs), workers.length, 120_000);

    return {
      url: gatewayUrl,
      databaseUrl: pg.url,
      temporalAddress: temporal.address,
      temporalUiUrl: temporal.uiUrl,
      s3: { endpoint: vars.S3_ENDPOINT!, ...MINIO, consoleUrl: `http://127.0.0.1:${opts.ports.minioConsole}` },
      stripeUrl: stripe.url,
      vars,
      apis,
      workers,
      temporal,
      postgres,
      minio,
      gateway,
      spawn,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

function killHard(pid: number, group: boolean): void {
  try {
    process.kill(group ? -pid : pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

async function waitUntilGone(pid: number | undefined): Promise<void> {
  if (!pid) return;
  for (let i = 0; i < 300; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A one-shot process of ours (compose's `migrate`): resolves when it exits 0. */
async function runOnce(name: string, args: string[], env: Record<string, string>, logFile: string): Promise<void> {
  const child = startChild({ command: process.execPath, args, cwd: ROOT, env, logFile });
  const code = await child.exited;
  if (code !== 0) throw new Error(`${name} failed (exit ${code}); see ${logFile}`);
}

/** Each worker logs "worker running" once it polls its task queues. */
async function waitForWorkers(logs: string, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let running = 0;
    for (let i = 1; i <= count; i++) {
      const log = await fs.readFile(path.join(logs, `worker-${i}.log`), 'utf8').catch(() => '');
      if (log.includes('worker running')) running++;
    }
    if (running === count) return;
    if (Date.now() > deadline)
      throw new Error(`${count - running} worker(s) not running after ${timeoutMs} ms; see ${logs}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
