import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Runtime, type WorkflowBundle, bundleWorkflowCode } from '@temporalio/worker';
import type { Knex } from 'knex';
import { type ServiceConfig, loadServiceConfig, loadToolsDir } from '../../src/config';
import { createDb } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrate';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { type LocalStack, startLocalStack } from '../../src/stack/local-stack';
import { freePort } from '../../src/stack/ports';
import { type TemporalCluster, startTemporalClusterOn } from '../../src/stack/temporal-cluster';
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
  // Wraps data keys with the first; the second ('test-codec-key-next-of-32-bytes!') is the key
  // env-at-rest rotates to on an instance of its own. Every process of the suite unwraps both, as
  // in a rolling rotation, so one that starts meanwhile (in the other lane) can read every row.
  TEMPORAL_CODEC_KEYS: 'dGVzdC1jb2RlYy1rZXktb2YtMzItYnl0ZXMtZXhhY3Q=,dGVzdC1jb2RlYy1rZXktbmV4dC1vZi0zMi1ieXRlcyE=',
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
  /** The stack, when this process started it (the isolated lane of `npm test` attaches to its runner's). */
  stack?: LocalStack;
  /** This process's folder: its logs, agents' and CLIs' scratch. */
  dataDir: string;
  /** The service's settings, and where the local tools are (for a test that runs one itself). */
  config: ServiceConfig & { toolsDir: string };
  db: Knex;
  bundle: WorkflowBundle;
  service: ServiceProcess;
  url: string;
  /** Where the API mails login codes. */
  mailbox: Mailbox;
  /** The environment the suite's config is read from, for child processes on the same stack. */
  vars: Record<string, string>;
  /** A config for extra processes (a second API, a worker child) against the same stack. */
  configWith(overrides: Record<string, string>): ServiceConfig;
}

/** What a process needs to attach to a running stack: its services' environment and the bundle. */
export interface SuiteStack {
  stack: LocalStack;
  dataDir: string;
  vars: Record<string, string>;
  bundlePath: string;
  /** Which Temporal the stack's services talk to: the dev server, or the Temporal server on PostgreSQL. */
  temporal: TemporalKind;
  /** The Temporal server's own stop, when this stack runs one. */
  stopTemporal?: () => Promise<void>;
}

/**
 * The dev server (`temporal server start-dev`, SQLite in memory) runs the whole suite; files that
 * prove what only a real cluster shows (processes killed, several instances, the UI's actions,
 * webhook delivery) also run on the Temporal server users deploy, on PostgreSQL (test/lanes.ts).
 * `COMPUTE_TEST_TEMPORAL=server mocha <file>` runs a file alone on it.
 */
export type TemporalKind = 'dev' | 'server';

export const temporalKindOfEnv = (): TemporalKind =>
  process.env.COMPUTE_TEST_TEMPORAL === 'server' ? 'server' : 'dev';

/**
 * A lane of `npm test` (scripts/test-suite.ts): its files run in a mocha process of their own,
 * beside the other lane's, on the one stack. `background` says whether its worker also runs the
 * stack's singletons (relays, billing schedules); only one lane's does.
 */
export interface Lane {
  name: string;
  taskQueue: string;
  background: boolean;
}

/**
 * A condition on pg_stat_activity for this lane's sessions alone: its processes connect with the
 * lane's application_name, and a lock wait of the other lane's is none of the test's business.
 */
export const OUR_SESSIONS = "application_name = current_setting('application_name')";

/** The database URL with its sessions named `name` in pg_stat_activity (`application_name`). */
export function sessionsNamed(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', name);
  return url.toString();
}

/**
 * The reconciler's pass over a workspace's unconfirmed rows, aged past any submit still under way
 * first: a pass over rows of any age would also take the other lane's submits in flight.
 */
export async function reconcileWorkspace(workspaceId: string): Promise<{ started: number; removed: number }> {
  const { db, service } = testEnv();
  await db('jobs')
    .where({ workspace_id: workspaceId, workflow_started: false })
    .update({ created_at: db.raw("now() - interval '1 minute'") });
  return service.services!.jobs.reconcile(30_000);
}

let env: TestEnv | undefined;

export function testEnv(): TestEnv {
  if (!env) throw new Error('test stack not started');
  return env;
}

/** Services' warnings, kept for a failing test's report (test/hooks.ts), never on the terminal. */
export const quietLog = recordedLog;

/** Starts the stack, migrates it and writes the workflow bundle: once per run, whatever the lanes. */
export async function startSuiteStack(temporal: TemporalKind = temporalKindOfEnv()): Promise<SuiteStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-test-'));
  fs.chmodSync(dataDir, 0o755);
  const stack = await startLocalStack({
    dataDir,
    toolsDir: loadToolsDir(),
    ports: {
      postgres: await freePort(),
      temporal: await freePort(),
      minio: await freePort(),
      minioConsole: await freePort(),
      stripeMock: await freePort(),
    },
    ephemeralTemporal: true,
    start: { postgres: true, temporal: temporal === 'dev', minio: true, stripeMock: true },
    log: stackLog,
  });
  // Bundled once for the run: the workers of the lanes take it from a file, as do the workers the
  // tests spawn (TEMPORAL_WORKFLOW_BUNDLE), as the image's workers do.
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: silentSdkLogger,
  });
  const bundlePath = path.join(dataDir, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, bundle.code);
  const server = temporal === 'server' ? await startTestTemporalServer(stack.databaseUrl!, dataDir) : undefined;
  const vars = {
    ...TEST_ENV,
    TEMPORAL_WORKFLOW_BUNDLE: bundlePath,
    DATABASE_URL: stack.databaseUrl!,
    TEMPORAL_ADDRESS: server?.address ?? stack.temporalAddress!,
    S3_ENDPOINT: stack.s3!.endpoint,
    S3_ACCESS_KEY: stack.s3!.accessKey,
    S3_SECRET_KEY: stack.s3!.secretKey,
    COMPUTE_DATA_DIR: dataDir,
    STRIPE_API_BASE: stack.stripeMock!.url,
  };
  const db = createDb(vars.DATABASE_URL);
  await migrateLatest(db);
  await db.destroy();
  return { stack, dataDir, vars, bundlePath, temporal, stopTemporal: server?.stop };
}

const stackLog = (msg: string) => process.stderr.write(`  [stack] ${msg}\n`);

/** The Temporal server on the stack's PostgreSQL (databases of its own), as stack:prod runs it. */
const startTestTemporalServer = (databaseUrl: string, dataDir: string): Promise<TemporalCluster> =>
  startTemporalClusterOn({
    databaseUrl,
    toolsDir: loadToolsDir(),
    dir: path.join(dataDir, 'temporal-server'),
    // As the dev server gets them (src/stack/temporal-server.ts): Worker Versioning's drainage
    // and pollers in seconds, so the upgrade runbook plays out in a test's time.
    dynamicConfig: {
      'matching.wv.VersionDrainageStatusRefreshInterval': '2s',
      'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '2s',
      'matching.PollerHistoryTTL': '5s',
    },
    log: stackLog,
  });

/**
 * The suite's stack with its services on the Temporal server instead (`npm test`'s server lane):
 * the same PostgreSQL, MinIO and stripe-mock, an app database of its own (its webhooks, meter and
 * billing singletons are its own), the Temporal server on databases of its own.
 */
export async function withTemporalServer(suite: SuiteStack): Promise<SuiteStack> {
  const dataDir = path.join(suite.dataDir, 'server');
  fs.mkdirSync(dataDir, { recursive: true });
  const appUrl = new URL(suite.vars.DATABASE_URL!);
  appUrl.pathname = '/compute_server';
  const admin = createDb(suite.vars.DATABASE_URL!);
  await admin.raw('create database compute_server');
  await admin.destroy();
  const server = await startTestTemporalServer(suite.vars.DATABASE_URL!, dataDir);
  const vars = {
    ...suite.vars,
    DATABASE_URL: appUrl.toString(),
    TEMPORAL_ADDRESS: server.address,
    COMPUTE_DATA_DIR: dataDir,
  };
  const db = createDb(vars.DATABASE_URL);
  await migrateLatest(db);
  await db.destroy();
  return { ...suite, dataDir, vars, temporal: 'server', stopTemporal: server.stop };
}

export async function stopSuiteStack(suite: SuiteStack): Promise<void> {
  await suite.stopTemporal?.();
  await suite.stack.stop();
  fs.rmSync(suite.dataDir, { recursive: true, force: true });
}

/** The whole suite in one process: its own stack, one lane that runs everything. */
export const SOLE_LANE: Lane = { name: 'sole', taskQueue: 'compute-jobs', background: true };

/**
 * This process's service on the stack: an API and a worker on the lane's task queue, its own
 * mailbox and folder; its PostgreSQL sessions carry the lane's name, so a test that looks at the
 * server's sessions (pg_stat_activity) sees its own lane's alone.
 */
export async function attachTestEnv(
  suite: Omit<SuiteStack, 'stack'> & { stack?: LocalStack },
  lane: Lane,
): Promise<TestEnv> {
  const dataDir = lane === SOLE_LANE ? suite.dataDir : path.join(suite.dataDir, 'lanes', lane.name);
  fs.mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
  const mailbox = new Mailbox();
  await mailbox.start();
  const envVars: Record<string, string> = {
    ...suite.vars,
    DATABASE_URL: sessionsNamed(suite.vars.DATABASE_URL!, `compute-test-${lane.name}`),
    SMTP_URL: mailbox.url,
    COMPUTE_DATA_DIR: dataDir,
    TEMPORAL_TASK_QUEUE: lane.taskQueue,
  };
  const configWith = (overrides: Record<string, string>) => loadServiceConfig({ ...envVars, ...overrides });
  const config = { ...configWith({}), toolsDir: loadToolsDir() };
  const db = createDb(config.databaseUrl!);
  const bundle = { code: fs.readFileSync(suite.bundlePath, 'utf8') };
  const service = await startServiceProcess({
    config,
    log: quietLog,
    api: true,
    worker: true,
    workflowBundle: bundle,
    background: lane.background,
  });
  env = {
    stack: suite.stack,
    dataDir,
    config,
    db,
    bundle,
    service,
    url: service.url!,
    mailbox,
    vars: envVars,
    configWith,
  };
  return env;
}

/** Stops this process's service; the stack too when this process started it. */
export async function detachTestEnv(suite?: SuiteStack): Promise<void> {
  if (env) {
    await env.service.stop();
    await env.db.destroy();
    await env.mailbox.stop();
    env = undefined;
  }
  if (suite) await stopSuiteStack(suite);
}

const noop = () => undefined;
export const silentSdkLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

/** Before any worker: core's native logs go through the silent logger too (replay tests provoke expected warnings). */
export function installQuietSdkRuntime(): void {
  Runtime.install({
    logger: silentSdkLogger,
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
}
