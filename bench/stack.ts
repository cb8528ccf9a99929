import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createApiKey } from '../src/auth/api-keys';
import { createWorkspace } from '../src/auth/workspaces';
import { type Config, loadConfig } from '../src/config';
import { createDb } from '../src/db/knex';
import { migrateLatest } from '../src/db/migrate';
import { createLogger } from '../src/log';
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
