import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnvironmentWithPath } from '../config';
import { freePort } from './ports';
import { type Supervised, supervise } from './supervisor';
import { waitForFrontend } from './temporal-server';
import { ensureTool } from './tools';

// The Temporal server as users deploy it: its own binary (not the dev CLI), persistence and
// visibility in PostgreSQL databases of their own, four history shards, all four services in one
// process. Its schemas and its namespace are set up by deploy/temporal-schema.sh and
// deploy/temporal-setup.sh, the scripts docker-compose.yml runs in Temporal's admin-tools image.

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const DEPLOY = path.join(ROOT, 'deploy');

export interface TemporalClusterOptions {
  toolsDir: string;
  /** Its configuration and logs. */
  dir: string;
  postgres: { host: string; port: number; user: string; password: string };
  /** The frontend's gRPC port, and the ports of its services and their membership rings (each below 32768). */
  ports: {
    frontend: number;
    frontendHttp: number;
    history: number;
    matching: number;
    worker: number;
    membership: [number, number, number, number];
  };
  namespace: string;
  /** Where the UI runs, when one is wanted, and the codec endpoint it decodes payloads with. */
  ui?: { port: number; codecEndpoint?: string };
  /** Dynamic config besides deploy/temporal-dynamicconfig.yaml (name to value), e.g. for tests. */
  dynamicConfig?: Record<string, string | number | boolean>;
  log: (msg: string) => void;
}

export interface TemporalCluster {
  address: string;
  uiUrl?: string;
  /** The server's process, restarted when it dies unasked (a `kill -9` of the soak). */
  server: Supervised;
  stop(): Promise<void>;
}

/** Builds the tools when missing, sets up the schemas, starts the server, its namespace and UI. */
export async function startTemporalCluster(opts: TemporalClusterOptions): Promise<TemporalCluster> {
  const server = await ensureTool('temporal-server', opts.toolsDir, opts.log);
  const sqlTool = await ensureTool('temporal-sql-tool', opts.toolsDir, opts.log);
  const cli = await ensureTool('temporal', opts.toolsDir, opts.log);
  const ui = opts.ui ? await ensureTool('temporal-ui-server', opts.toolsDir, opts.log) : undefined;
  const logs = path.join(opts.dir, 'logs');
  await fs.mkdir(path.join(opts.dir, 'config'), { recursive: true });
  await fs.mkdir(logs, { recursive: true });

  await runScript('temporal-schema.sh', sqlTool, path.join(logs, 'temporal-schema.log'), {
    SQL_PLUGIN: 'postgres12',
    SQL_HOST: opts.postgres.host,
    SQL_PORT: String(opts.postgres.port),
    SQL_USER: opts.postgres.user,
    SQL_PASSWORD: opts.postgres.password,
  });
  await writeServerConfig(opts);
  const address = `127.0.0.1:${opts.ports.frontend}`;
  const logFile = path.join(logs, 'temporal-server.log');
  const supervised = supervise('temporal server', {
    command: server,
    args: ['--root', opts.dir, '--config', 'config', '--env', 'production', 'start'],
    logFile,
    log: opts.log,
  });
  const stops: Array<() => Promise<void>> = [() => supervised.stop()];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    await waitForFrontend('Temporal server', address, supervised.gaveUp, 120_000, logFile);
    await runScript('temporal-setup.sh', cli, path.join(logs, 'temporal-setup.log'), {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: opts.namespace,
    });
    let uiUrl: string | undefined;
    if (opts.ui && ui) {
      uiUrl = await startUi(ui, opts, address, stops);
    }
    return { address, uiUrl, server: supervised, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** One of deploy/'s scripts, with `tool`'s folder first on PATH (it names the tools as the image does). */
async function runScript(script: string, tool: string, logFile: string, env: Record<string, string>): Promise<void> {
  try {
    const { stdout, stderr } = await run('sh', [path.join(DEPLOY, script)], {
      env: childEnvironmentWithPath(path.dirname(tool), env),
      maxBuffer: 16 * 1024 * 1024,
    });
    await fs.writeFile(logFile, stdout + stderr);
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    await fs.writeFile(logFile, `${e.stdout ?? ''}${e.stderr ?? ''}`);
    const last = (e.stderr || e.stdout || e.message).trim().split('\n').slice(-3).join(' | ');
    throw new Error(`deploy/${script} failed: ${last} (see ${logFile})`);
  }
}

async function writeServerConfig(opts: TemporalClusterOptions): Promise<void> {
  const { postgres, ports } = opts;
  const datastore = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${postgres.host}:${postgres.port}`,
      connectProtocol: 'tcp',
      user: postgres.user,
      password: postgres.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const rpc = (grpcPort: number, membershipPort: number, extra: Record<string, number> = {}) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...extra },
  });
  const dynamicConfig = path.join(opts.dir, 'config', 'dynamicconfig.yaml');
  const extra = Object.entries(opts.dynamicConfig ?? {})
    .map(([key, value]) => `\n${key}:\n  - value: ${JSON.stringify(value)}\n    constraints: {}\n`)
    .join('');
  await fs.writeFile(
    dynamicConfig,
    (await fs.readFile(path.join(DEPLOY, 'temporal-dynamicconfig.yaml'), 'utf8')) + extra,
  );
  // YAML is a superset of JSON: the server reads this as its production.yaml.
  const config = {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: 4,
      datastores: {
        'postgres-default': datastore('temporal', 20),
        'postgres-visibility': datastore('temporal_visibility', 10),
      },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: rpc(ports.frontend, ports.membership[0], { httpPort: ports.frontendHttp }),
      history: rpc(ports.history, ports.membership[1]),
      matching: rpc(ports.matching, ports.membership[2]),
      worker: rpc(ports.worker, ports.membership[3]),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `127.0.0.1:${ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfig, pollInterval: '10s' },
  };
  await fs.writeFile(path.join(opts.dir, 'config', 'production.yaml'), JSON.stringify(config, null, 2));
}

async function startUi(
  binary: string,
  opts: TemporalClusterOptions,
  address: string,
  stops: Array<() => Promise<void>>,
): Promise<string> {
  const ui = opts.ui!;
  const root = path.join(opts.dir, 'ui');
  await fs.mkdir(path.join(root, 'config'), { recursive: true });
  const config = {
    temporalGrpcAddress: address,
    host: '127.0.0.1',
    port: ui.port,
    enableUi: true,
    defaultNamespace: opts.namespace,
    cors: { allowOrigins: [`http://127.0.0.1:${ui.port}`, `http://localhost:${ui.port}`] },
    codec: { endpoint: ui.codecEndpoint ?? '', includeCredentials: true },
  };
  await fs.writeFile(path.join(root, 'config', 'production.yaml'), JSON.stringify(config, null, 2));
  const logFile = path.join(opts.dir, 'logs', 'temporal-ui.log');
  const child = supervise('temporal ui', {
    command: binary,
    args: ['--root', root, '--config', 'config', '--env', 'production', 'start'],
    logFile,
    log: opts.log,
  });
  stops.push(() => child.stop());
  const url = `http://127.0.0.1:${ui.port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return url;
    if (Date.now() > deadline) throw new Error(`the Temporal UI did not answer at ${url}; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The cluster on an existing PostgreSQL (its server, `databaseUrl`'s credentials), every port free
 * unless given: the test suite's server lane and the benchmarks' `--temporal=server`.
 */
export async function startTemporalClusterOn(o: {
  databaseUrl: string;
  toolsDir: string;
  dir: string;
  frontendPort?: number;
  ui?: TemporalClusterOptions['ui'];
  dynamicConfig?: TemporalClusterOptions['dynamicConfig'];
  log: (msg: string) => void;
}): Promise<TemporalCluster> {
  const url = new URL(o.databaseUrl);
  return startTemporalCluster({
    toolsDir: o.toolsDir,
    dir: o.dir,
    postgres: {
      host: url.hostname,
      port: Number(url.port),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    },
    ports: {
      frontend: o.frontendPort ?? (await freePort()),
      frontendHttp: await freePort(),
      history: await freePort(),
      matching: await freePort(),
      worker: await freePort(),
      membership: [await freePort(), await freePort(), await freePort(), await freePort()],
    },
    namespace: 'default',
    ui: o.ui,
    dynamicConfig: o.dynamicConfig,
    log: o.log,
  });
}
