import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Knex } from 'knex';
import { type Config, loadConfig } from '../../src/config';
import { createDb } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrate';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { type LocalStack, startLocalStack } from '../../src/stack/local-stack';
import { freePort } from '../../src/stack/ports';
import { Mailbox } from './mailbox';
import { recordedLog } from './service-log';

/** Durations shortened so the timer paths run in seconds; everything else as in production. */
export const TEST_ENV = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  PORT: '0',
  // Worker processes the tests start pick free ports; the SDK's exporter only where a test asks.
  WORKER_PORT: '0',
  TEMPORAL_METRICS_PORT: '0',
  AGENT_LOST_AFTER_MS: '2500',
  CANCEL_GRACE_MS: '1500',
  AGENT_LOSS_BACKOFF_MS: '200',
  SSE_KEEPALIVE_MS: '400',
  LOG_LIMIT_BYTES: String(64 * 1024),
  RECONCILE_INTERVAL_MS: '3600000',
  // The meter ticks often enough for the billing tests to watch it.
  METER_TICK_SECONDS: '2',
  // Billing periods of an hour: the periods schedule runs as an interval the tests can read and
  // trigger, and a period a test closes rolls to one that will not end while the suite runs.
  BILLING_PERIOD: '3600',
  DEPENDENCY_RETRY_AFTER_SECONDS: '3',
  JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
  // Seals webhook secrets at rest: base64 of 'test-webhook-secret-key-32-bytes'.
  WEBHOOK_SECRET_KEYS: 'dGVzdC13ZWJob29rLXNlY3JldC1rZXktMzItYnl0ZXM=',
  TEMPORAL_CODEC_KEYS: 'dGVzdC1jb2RlYy1rZXktb2YtMzItYnl0ZXMtZXhhY3Q=',
  OTP_MAX_PER_HOUR: '1000',
  // Every test logs in from 127.0.0.1; tests of the login limits lower them on an API of their own.
  OTP_MAX_PER_HOUR_PER_IP: '100000',
  OTP_MAX_PER_HOUR_PER_EMAIL: '100000',
  OTP_MAX_FAILED_VERIFY_PER_HOUR_PER_IP: '100000',
  HEARTBEAT_INTERVAL_SECONDS: '1',
  AGENT_KILL_GRACE_MS: '1000',
  // Receivers in tests listen on 127.0.0.1; the guard's refusals have a test of their own.
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  // Temporal waits at least about a second before an activity's retry, whatever delay it is given.
  WEBHOOK_FIRST_RETRY_MS: '1000',
  WEBHOOK_MAX_RETRY_DELAY_MS: '4000',
  WEBHOOK_RELAY_INTERVAL_MS: '50',
  // Stripe is stripe-mock (STRIPE_API_BASE, set at start); events are signed with this secret.
  STRIPE_SECRET_KEY: 'sk_test_compute',
  STRIPE_WEBHOOK_SECRET: 'whsec_compute_test',
  STRIPE_METER_RELAY_INTERVAL_MS: '200',
};

export interface TestEnv {
  stack: LocalStack;
  dataDir: string;
  config: Config;
  db: Knex;
  bundle: WorkflowBundleWithSourceMap;
  service: ServiceProcess;
  url: string;
  /** Where the API mails login codes. */
  mailbox: Mailbox;
  /** The environment the suite's config is read from, for child processes on the same stack. */
  vars: Record<string, string>;
  /** A config for extra processes (a second API, a worker child) against the same stack. */
  configWith(overrides: Record<string, string>): Config;
}

let env: TestEnv | undefined;

export function testEnv(): TestEnv {
  if (!env) throw new Error('test stack not started');
  return env;
}

/** Services' warnings, kept for a failing test's report (test/hooks.ts), never on the terminal. */
export const quietLog = recordedLog;

export async function startTestEnv(): Promise<TestEnv> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-test-'));
  fs.chmodSync(dataDir, 0o755);
  const stack = await startLocalStack({
    dataDir,
    toolsDir: loadConfig().toolsDir,
    ports: { postgres: await freePort(), temporal: await freePort(), minio: await freePort(), minioConsole: await freePort(), stripeMock: await freePort() },
    ephemeralTemporal: true,
    start: { postgres: true, temporal: true, minio: true, stripeMock: true },
    log: (msg) => process.stderr.write(`  [stack] ${msg}\n`),
  });
  const mailbox = new Mailbox();
  await mailbox.start();
  // Bundled once for the run: the worker in this process takes it as is, the workers the tests
  // spawn load it from a file (TEMPORAL_WORKFLOW_BUNDLE), as the image's workers do.
  const bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: silentSdkLogger });
  const bundlePath = path.join(dataDir, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, bundle.code);
  const envVars = {
    ...TEST_ENV,
    TEMPORAL_WORKFLOW_BUNDLE: bundlePath,
    SMTP_URL: mailbox.url,
    DATABASE_URL: stack.databaseUrl!,
    TEMPORAL_ADDRESS: stack.temporalAddress!,
    S3_ENDPOINT: stack.s3!.endpoint,
    S3_ACCESS_KEY: stack.s3!.accessKey,
    S3_SECRET_KEY: stack.s3!.secretKey,
    COMPUTE_DATA_DIR: dataDir,
    STRIPE_API_BASE: stack.stripeMock!.url,
  };
  const configWith = (overrides: Record<string, string>) => loadConfig({ ...envVars, ...overrides });
  const config = configWith({});
  const db = createDb(config.databaseUrl!);
  await migrateLatest(db);
  const service = await startServiceProcess({ config, log: quietLog, api: true, worker: true, workflowBundle: bundle });
  env = { stack, dataDir, config, db, bundle, service, url: service.url!, mailbox, vars: envVars, configWith };
  return env;
}

export async function stopTestEnv(): Promise<void> {
  if (!env) return;
  await env.service.stop();
  await env.db.destroy();
  await env.mailbox.stop();
  await env.stack.stop();
  fs.rmSync(env.dataDir, { recursive: true, force: true });
  env = undefined;
}

const noop = () => undefined;
export const silentSdkLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };
