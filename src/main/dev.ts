import os from 'node:os';
import path from 'node:path';
import { Agent } from '../reference-agent/agent';
import { detectCapacity } from '../reference-agent/capacity';
import { SandboxUnavailable } from '../reference-agent/sandbox';
import { DEBIAN_PACKAGE_VERSIONS, ensureDebianPackage } from '../stack/debian-packages';
import { type DevConfig, loadDevConfig } from '../config';
import { ensureDevApiKey } from '../auth/dev-key';
import { ensureDefaultWorkspace, ensureOperatorWorkspace } from '../workspaces/rows';
import { createDb } from '../db/knex';
import { migrateLatest } from '../db/migrate';
import { createLogger } from '../logging/logger';
import { startServiceProcess } from '../runtime/service-process';
import { installSdkRuntime } from '../runtime/sdk-runtime';
import { startLocalStack } from '../stack/local-stack';
import { printAddresses } from './banner';
import { runUntilSignal } from './run-until-signal';

// `npm run dev`: the whole service on one machine. Temporal (with its UI), PostgreSQL and MinIO
// are started from the project's own tools unless TEMPORAL_ADDRESS, DATABASE_URL or S3_ENDPOINT
// point elsewhere; all data lives under COMPUTE_DATA_DIR (default .data) and survives restarts.
async function main() {
  const base = loadDevConfig();
  const log = createLogger(base.logLevel, 'dev');
  installSdkRuntime(log, base.worker.sdkMetricsPort);
  const say = (msg: string) => process.stderr.write(`${msg}\n`);
  say(`compute dev: data in ${base.dataDir}`);
  // Stripe is stripe-mock unless a real key is configured (then Stripe itself).
  const started = {
    postgres: !base.databaseUrl,
    temporal: !base.temporal.address,
    minio: !base.s3.endpoint,
    stripeMock: !base.stripe.secretKey,
    jaeger: !base.tracing.endpoint,
  };
  const stack = await startLocalStack({
    dataDir: base.dataDir,
    toolsDir: base.toolsDir,
    ports: {
      postgres: base.dev.postgresPort,
      temporal: base.dev.temporalPort,
      temporalUi: base.dev.temporalUiPort,
      minio: base.dev.minioPort,
      minioConsole: base.dev.minioConsolePort,
      stripeMock: base.dev.stripeMockPort,
      jaeger: { otlp: base.dev.otlpPort, query: base.dev.jaegerPort, queryGrpc: base.dev.jaegerGrpcPort },
    },
    start: started,
    // The UI decodes job payloads through the API (for a person signed in to the portal).
    uiCodecEndpoint: `${base.http.publicUrl ?? `http://127.0.0.1:${base.http.port}`}/codec`,
    log: (msg) => say(`  ${msg}`),
  });
  const config: DevConfig = {
    ...base,
    databaseUrl: base.databaseUrl ?? stack.databaseUrl,
    temporal: { ...base.temporal, address: base.temporal.address ?? stack.temporalAddress },
    s3: stack.s3
      ? { ...base.s3, endpoint: stack.s3.endpoint, accessKey: stack.s3.accessKey, secretKey: stack.s3.secretKey }
      : base.s3,
    stripe: stack.stripeMock
      ? { ...base.stripe, secretKey: 'sk_test_computedev', apiBase: stack.stripeMock.url }
      : base.stripe,
    // Every job's trace goes to the Jaeger started here, unless OTEL_EXPORTER_OTLP_ENDPOINT names another collector.
    tracing: { ...base.tracing, endpoint: base.tracing.endpoint ?? stack.jaeger?.otlpEndpoint },
    // The portal links job runs to the UI started here, unless TEMPORAL_UI_URL names another.
    portal: { ...base.portal, temporalUiUrl: base.portal.temporalUiUrl ?? stack.temporalUiUrl },
  };
  const db = createDb(config.databaseUrl!);
  await migrateLatest(db);
  const workspaceId = await ensureDefaultWorkspace(db);
  const key = await ensureDevApiKey(db, config.dataDir, workspaceId);
  const managedKey = await ensureDevApiKey(db, config.dataDir, await ensureOperatorWorkspace(db), 'managed');
  await db.destroy();

  const proc = await startServiceProcess({
    config,
    log,
    api: true,
    worker: true,
    sdkMetricsPort: config.worker.sdkMetricsPort,
  });
  // One agent in this process, so a submitted job runs on this machine.
  const agent = new Agent({
    apiUrl: proc.url!,
    key,
    name: `${os.hostname()}-dev`,
    labels: { dev: 'true' },
    concurrency: 2,
    dir: path.join(config.dataDir, 'agent'),
    killGraceMs: config.agent.killGraceMs,
    log: createLogger(base.logLevel, 'agent'),
  });
  // And one agent of the managed pool, region local (every workspace's default), so a job with
  // "pool": "managed" runs on a fresh clone too: in its sandbox, as in production, where root can
  // install bubblewrap; elsewhere the managed pool has no agent here, and the log says why.
  if (process.getuid?.() === 0)
    await ensureDebianPackage('bubblewrap', DEBIAN_PACKAGE_VERSIONS.bubblewrap, (msg) => say(`  ${msg}`));
  const managedAgent = new Agent({
    apiUrl: proc.url!,
    key: managedKey,
    name: `${os.hostname()}-managed`,
    labels: {},
    region: 'local',
    concurrency: 2,
    sandbox: { uidBase: 900_000 },
    capacity: detectCapacity(),
    dir: path.join(config.dataDir, 'managed-agent'),
    killGraceMs: config.agent.killGraceMs,
    log: createLogger(base.logLevel, 'managed-agent'),
  });
  const managedWhyNot = await Promise.all([
    agent.start(),
    managedAgent.start().then(
      () => null,
      (err: unknown) => (err instanceof SandboxUnavailable ? err.message : Promise.reject(err)),
    ),
  ]).then(([, why]) => why);
  printAddresses(say, {
    url: proc.url!,
    temporalAddress: config.temporal.address!,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    temporalUiUrl: stack.temporalUiUrl,
    databaseUrl: config.databaseUrl!,
    s3: stack.s3,
    traces: stack.jaeger
      ? `${stack.jaeger.queryUrl}/api/traces/<traceId>   (a job's traceId is in its record)`
      : config.tracing.endpoint,
    stripe: stack.stripeMock
      ? `stripe-mock at ${stack.stripeMock.url}; events signed with ${config.stripe.webhookSecret}`
      : config.stripe.secretKey
        ? (config.stripe.apiBase ?? 'api.stripe.com')
        : undefined,
    loginCodes: 'this log',
    agents: [
      `Agent          ${agent.id}   (labels dev=true, 2 jobs at once)`,
      managedWhyNot === null
        ? `Managed agent  ${managedAgent.id}   (managed pool, region local: jobs with "pool": "managed" of billed plans, each in its sandbox)`
        : `Managed agent  not started: ${managedWhyNot} (jobs with "pool": "managed" wait)`,
    ],
    workspaceId,
    key,
  });
  const services = [
    started.temporal && 'Temporal',
    started.postgres && 'PostgreSQL',
    started.minio && 'MinIO',
    started.stripeMock && 'stripe-mock',
    started.jaeger && 'Jaeger',
  ].filter(Boolean);
  // Each part stops before what it depends on, so nothing calls a server that is already gone.
  runUntilSignal(log, async () => {
    say('stopping the agent');
    say('stopping the managed agent');
    await Promise.all([agent.killJobs(), managedWhyNot === null && managedAgent.killJobs()]);
    say('stopping the API and the worker');
    await proc.stop();
    if (services.length > 0) say(`stopping ${services.join(', ')}`);
    await stack.stop();
    say('stopped');
  });
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
