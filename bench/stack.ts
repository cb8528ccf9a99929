import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Knex } from 'knex';
import { createApiKey } from '../src/auth/api-keys';
import { createWorkspace } from '../src/auth/workspaces';
import { type Config, loadConfig } from '../src/config';
import { createDb } from '../src/db/knex';
import { migrateLatest } from '../src/db/migrate';
import { createLogger } from '../src/log';
import { runUntilSignal } from '../src/main/run-until-signal';
import { type ServiceProcess, startServiceProcess } from '../src/runtime/service-process';
import { type LocalStack, startLocalStack } from '../src/stack/local-stack';
import { freePort } from '../src/stack/ports';

/** The service's settings for the benchmark: its defaults, quiet logs, no rate limiting. */
const BENCH_ENV = {
  // As the tests do: production would require SMTP_URL, and the benchmark mails nothing.
  NODE_ENV: 'test',
  LOG_LEVEL: 'error',
  PORT: '0',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123456789',
  RATE_LIMIT_PER_MINUTE: '10000000',
  RATE_LIMIT_PER_HOUR: '10000000',
};

export interface BenchStack {
  config: Config;
  db: Knex;
  service: ServiceProcess;
  url: string;
  temporalAddress: string;
  databaseUrl: string;
  /** A fresh workspace's user key. */
  userKey: string;
  stop(): Promise<void>;
}

/**
 * Starts Temporal (ephemeral dev server) and PostgreSQL on free ports, migrates, and runs the API
 * and the worker in this process (so submits start workflows eagerly), as test/support/env.ts does.
 */
export async function startBenchStack(say: (msg: string) => void): Promise<BenchStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-bench-'));
  fs.chmodSync(dataDir, 0o755);
  let stack: LocalStack | undefined;
  let db: Knex | undefined;
  let service: ServiceProcess | undefined;
  const stop = async () => {
    await service?.stop().catch((err) => say(`service stop failed: ${String(err)}`));
    await db?.destroy().catch(() => undefined);
    await stack?.stop().catch((err) => say(`stack stop failed: ${String(err)}`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    stack = await startLocalStack({
      dataDir,
      toolsDir: loadConfig().toolsDir,
      ports: { postgres: await freePort(), temporal: await freePort() },
      ephemeralTemporal: true,
      start: { postgres: true, temporal: true, minio: false },
      log: (msg) => say(`  [stack] ${msg}`),
    });
    const config = loadConfig({ ...BENCH_ENV, DATABASE_URL: stack.databaseUrl!, TEMPORAL_ADDRESS: stack.temporalAddress!, COMPUTE_DATA_DIR: dataDir });
    db = createDb(config.databaseUrl!);
    await migrateLatest(db);
    service = await startServiceProcess({ config, log: createLogger(config.logLevel, 'bench'), api: true, worker: true });
    const workspaceId = await createWorkspace(db, 'bench');
    const { key } = await createApiKey(db, { workspaceId, name: 'bench', kind: 'user' });
    return {
      config,
      db,
      service,
      url: service.url!,
      temporalAddress: stack.temporalAddress!,
      databaseUrl: stack.databaseUrl!,
      userKey: key,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * A bench's whole life: start the stack, run, print the one-line summary on stdout, take the
 * stack down (on Ctrl-C too), exit. `run` prints its own figures as it goes.
 */
export function runBench(run: (stack: BenchStack) => Promise<string>): void {
  const note = (line: string) => process.stderr.write(`${line}\n`);
  const main = async () => {
    // The SDK's own logs at warn: its info level prints the whole workflow bundle report.
    Runtime.install({ logger: new DefaultLogger('WARN') });
    const started = Date.now();
    note('starting the stack (Temporal dev server, PostgreSQL, API + worker in process) …');
    const stack = await startBenchStack(note);
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
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}

/** `--name=N` from the command line, a positive integer, else `fallback`. */
export function option(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = arg ? Number(arg.split('=')[1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer`);
  return value;
}
