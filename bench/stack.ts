import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Knex } from 'knex';
import { createApiKey } from '../src/auth/api-keys';
import { createWorkspace } from '../src/workspaces/rows';
import { type ServiceConfig, loadServiceConfig, loadToolsDir } from '../src/config';
import { createDb } from '../src/db/knex';
import { migrateLatest } from '../src/db/migrate';
import { createLogger } from '../src/logging/logger';
import { runUntilSignal } from '../src/main/run-until-signal';
import { type ServiceProcess, startServiceProcess } from '../src/runtime/service-process';
import { type LocalStack, startLocalStack } from '../src/stack/local-stack';
import { freePort } from '../src/stack/ports';
import { type TemporalCluster, startTemporalClusterOn } from '../src/stack/temporal-cluster';
import { type ManagedChild, startChild } from '../src/stack/child';
import { NODE_FLAGS } from '../src/runtime/node-flags';

/** The service's settings for the benchmark: its defaults, quiet logs, no rate limiting. */
const BENCH_ENV = {
  // As the tests do: production would require SMTP_URL, and the benchmark mails nothing.
  NODE_ENV: 'test',
  LOG_LEVEL: 'error',
  PORT: '0',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123456789',
  RATE_LIMIT_PER_MINUTE: '10000000',
  RATE_LIMIT_PER_HOUR: '10000000',
  // The webhook bench's receivers listen on 127.0.0.1.
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  // The one setting a bench run may vary: WORKFLOW_CACHE_SIZE=N npm run bench:dispatch.
  ...(process.env.WORKFLOW_CACHE_SIZE && { WORKFLOW_CACHE_SIZE: process.env.WORKFLOW_CACHE_SIZE }),
};

export interface BareStack {
  /** The service's settings for this stack (BENCH_ENV with its addresses). */
  config: ServiceConfig;
  /** The environment those settings come from, for service processes the bench spawns. */
  vars: Record<string, string>;
  db: Knex;
  dataDir: string;
  temporalAddress: string;
  databaseUrl: string;
  /** A fresh workspace and its user key. */
  workspaceId: string;
  userKey: string;
  stop(): Promise<void>;
}

/** A user key of a workspace of its own, for load that comes from another workspace than the agents'. */
export async function anotherWorkspaceKey(db: Knex, name: string): Promise<string> {
  const workspaceId = await createWorkspace(db, name);
  return (await createApiKey(db, { workspaceId, name, kind: 'user' })).key;
}

/** The URL of `name`, a database beside the stack's in the same PostgreSQL, created if missing. */
export async function databaseBeside(stack: BareStack, name: string): Promise<string> {
  const exists = await stack.db.raw('SELECT 1 FROM pg_database WHERE datname = ?', [name]);
  if (!exists.rows.length) await stack.db.raw(`CREATE DATABASE ${name}`);
  const url = new URL(stack.databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface BenchStack extends BareStack {
  service: ServiceProcess;
  url: string;
}

/**
 * Starts Temporal (ephemeral dev server) and PostgreSQL on free ports and migrates; the service
 * is the bench's to run (`startBenchStack` runs it in this process, `spawnService` as its own).
 */
export async function startBareStack(
  say: (msg: string) => void,
  postgresSettings?: Record<string, string>,
): Promise<BareStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-bench-'));
  fs.chmodSync(dataDir, 0o755);
  let stack: LocalStack | undefined;
  let cluster: TemporalCluster | undefined;
  let db: Knex | undefined;
  const onServer = temporalOption() === 'server';
  const stop = async () => {
    await db?.destroy().catch(() => undefined);
    await cluster?.stop().catch((err) => say(`Temporal server stop failed: ${String(err)}`));
    await stack?.stop().catch((err) => say(`stack stop failed: ${String(err)}`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    stack = await startLocalStack({
      dataDir,
      toolsDir: loadToolsDir(),
      ports: { postgres: await freePort(), temporal: await freePort() },
      ephemeralTemporal: true,
      start: { postgres: true, temporal: !onServer, minio: false },
      postgresSettings,
      log: (msg) => say(`  [stack] ${msg}`),
    });
    if (onServer)
      cluster = await startTemporalClusterOn({
        databaseUrl: stack.databaseUrl!,
        toolsDir: loadToolsDir(),
        dir: path.join(dataDir, 'temporal-server'),
        log: (msg) => say(`  [stack] ${msg}`),
      });
    const temporalAddress = cluster?.address ?? stack.temporalAddress!;
    const vars = {
      ...BENCH_ENV,
      DATABASE_URL: stack.databaseUrl!,
      TEMPORAL_ADDRESS: temporalAddress,
      COMPUTE_DATA_DIR: dataDir,
    };
    const config = loadServiceConfig(vars);
    db = createDb(config.databaseUrl!);
    await migrateLatest(db);
    const workspaceId = await createWorkspace(db, 'bench');
    const { key } = await createApiKey(db, { workspaceId, name: 'bench', kind: 'user' });
    return {
      config,
      vars,
      db,
      dataDir,
      temporalAddress,
      databaseUrl: stack.databaseUrl!,
      workspaceId,
      userKey: key,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The bare stack, with the API and the worker in this process (so submits start workflows
 * eagerly), as test/support/env.ts does.
 */
export async function startBenchStack(say: (msg: string) => void): Promise<BenchStack> {
  const bare = await startBareStack(say);
  try {
    const service = await startServiceProcess({
      config: bare.config,
      log: createLogger(bare.config.logLevel, 'bench'),
      api: true,
      worker: true,
    });
    return {
      ...bare,
      service,
      url: service.url!,
      async stop() {
        await service.stop().catch((err) => say(`service stop failed: ${String(err)}`));
        await bare.stop();
      },
    };
  } catch (err) {
    await bare.stop();
    throw err;
  }
}

/**
 * The service compiled as the image runs it (`npm run build` into dist/, then `node dist/...`),
 * and the bench's own processes beside it (bench/tsconfig.build.json), once per bench run. Under
 * tsx every function the service creates would carry the name esbuild's keepNames gives it (a
 * property store of its own, about 250 bytes and a defineProperty per closure), a cost production
 * does not pay; a baseline or a load generator run under tsx would pay it where ours does not.
 */
let built: Promise<void> | undefined;
export function buildService(): Promise<void> {
  const tsc = (project: string) =>
    new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [require.resolve('typescript/bin/tsc'), '-p', project],
        { cwd: ROOT },
        (err, stdout) => (err ? reject(new Error(`tsc -p ${project} failed: ${stdout}`)) : resolve()),
      );
    });
  built ??= tsc('tsconfig.build.json').then(() => tsc('bench/tsconfig.build.json'));
  return built;
}
const ROOT = path.resolve(__dirname, '..');
/** Where the build puts the compiled tree (dist/src, dist/bench, …). */
export const BUILT_ROOT = path.join(ROOT, 'dist');

/** The API (or a worker) as a process of its own on this stack, built as the image runs it; resolves once it answers /healthz (the API) or has started. */
export async function spawnService(
  stack: BareStack,
  what: 'api' | 'worker',
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<ManagedChild & { url?: string }> {
  await buildService();
  const port = what === 'api' ? await freePort() : 0;
  const child = startChild({
    command: process.execPath,
    // With the flags `npm run api` and `npm run worker` give it (src/runtime/node-flags.ts).
    args: [...NODE_FLAGS[what], ...nodeArgs, `dist/src/main/${what}.js`],
    cwd: ROOT,
    env: { ...stack.vars, PORT: String(port), ...env },
    logFile: path.join(stack.dataDir, 'logs', `${what}-${port || Date.now()}.log`),
  });
  if (what === 'worker') return child;
  const url = `http://127.0.0.1:${port}`;
  for (const started = Date.now(); ;) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { ...child, url };
    if (Date.now() - started > 60_000) {
      await child.stop();
      throw new Error(`the ${what} did not start; see ${stack.dataDir}/logs`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A bench's whole life: start the stack, run, print the one-line summary on stdout, take the
 * stack down (on Ctrl-C too), exit. `run` prints its own figures as it goes.
 */
export function runBench(run: (stack: BenchStack) => Promise<string>): void;
export function runBench(
  run: (stack: BareStack) => Promise<string>,
  opts: { inProcess: false; postgresSettings?: Record<string, string> },
): void;
export function runBench(
  run: (stack: BenchStack) => Promise<string>,
  opts: { inProcess?: boolean; postgresSettings?: Record<string, string> } = {},
): void {
  const note = (line: string) => process.stderr.write(`${line}\n`);
  const main = async () => {
    // The SDK's own logs at warn: its info level prints the whole workflow bundle report.
    Runtime.install({ logger: new DefaultLogger('WARN') });
    const started = Date.now();
    const inProcess = opts.inProcess !== false;
    const temporal = temporalOption() === 'server' ? 'the Temporal server on PostgreSQL' : 'Temporal dev server';
    note(`starting the stack (${temporal}, PostgreSQL${inProcess ? ', API + worker in process' : ''}) …`);
    const stack = (
      inProcess ? await startBenchStack(note) : await startBareStack(note, opts.postgresSettings)
    ) as BenchStack;
    note(`stack ready in ${Date.now() - started} ms`);
    runUntilSignal(createLogger('warn', 'bench'), async () => {
      await stack.stop();
      process.exit(130);
    });
    let summary: string;
    try {
      summary = await run(stack);
    } finally {
      await stack.stop();
    }
    note(`bench done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    process.stdout.write(`${summary}\n`);
    process.exit(0);
  };
  main().catch((err) => {
    // A failed statement's message repeats the statement: keep the report readable.
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(
      `bench failed: ${text.length > 4000 ? `${text.slice(0, 2000)} … ${text.slice(-2000)}` : text}\n`,
    );
    process.exit(1);
  });
}

/**
 * `--temporal=server`: the bench on the Temporal server users deploy (PostgreSQL persistence, 4
 * shards, src/stack/temporal-cluster.ts) instead of the dev server (SQLite in memory).
 */
export function temporalOption(): 'dev' | 'server' {
  const value = process.argv.find((a) => a.startsWith('--temporal='))?.split('=')[1] ?? 'dev';
  if (value !== 'dev' && value !== 'server') throw new Error('--temporal is dev or server');
  return value;
}

/** `--name=N` from the command line, an integer of at least `min` (1 unless told), else `fallback`. */
export function option(name: string, fallback: number, min = 1): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = arg ? Number(arg.split('=')[1]) : fallback;
  if (!Number.isInteger(value) || value < min)
    throw new Error(`--${name} must be ${min === 1 ? 'a positive integer' : `an integer of at least ${min}`}`);
  return value;
}
