import { ensureMeterSchedule } from '../billing/meter-schedule';
import { createDataKeys, resolveCodecKeys } from '../crypto/data-keys';
import { sealStoredEnvs } from '../jobs/env-at-rest';
import { computeCodec } from '../temporal/data-converter';
import { ensurePeriodSchedule } from '../billing/period-schedule';
import { periodSettingsOf } from '../billing/periods';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startReconciler } from '../jobs/reconciler';
import { Client, Connection } from '@temporalio/client';
import {
  NativeConnection,
  Worker,
  type WorkerOptions,
  type WorkflowBundle,
  bundleWorkflowCode,
} from '@temporalio/worker';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { createActivities } from '../../activities';
import { resetRunsOf } from '../temporal/reset-runs';
import { createWebhookActivities } from '../../activities/webhooks';
import { createObjectStore } from '../artifacts/object-store';
import { resolveJwtSecret } from '../auth/jwt-secret';
import type { ApiConfig, ServiceConfig, SharedSettings, WorkerConfig } from '../config';
import { createDb } from '../db/knex';
import { observePoolWaits } from '../db/pool-metrics';
import { Notifier } from '../db/notifier';
import { createApp } from '../http/app';
import type { RouteInfo } from '../http/route-table';
import { ARTIFACT_UPLOAD_PREFIX } from '../artifacts/url-paths';
import { applyRequestDeadlines } from '../http/request-deadline';
import { type Services, createServices } from '../services';
import { createJobWorkflowClient } from '../temporal/job-workflow-client';
import { createWebhookWorkflows } from '../temporal/webhook-workflow-client';
import { deploymentOptionsOf, promoteIfNoCurrent } from '../temporal/worker-deployment';
import { type WebhookRelay, createWebhookRelay } from '../webhooks/relay';
import { createMeterEventRelay } from '../billing/meter-events';
import { stripeClient } from '../billing/stripe-client';
import { createSecretBox } from '../webhooks/secret-box';
import { resolveWebhookSecretKeys, sealStoredSecrets } from '../webhooks/secret-keys';
import type { Resolver } from '../webhooks/target-guard';
import Koa from 'koa';
import { healthRoutes, sdkMetricsFrom } from '../http/health-routes';
import { requestContext } from '../http/request-context';
import { addQueueDepthSource, addServiceStateSource } from '../metrics/registry';
import { readServiceState } from './service-state';
import { createReadiness } from './readiness';
import { activityLogging } from './sdk-runtime';
import { startTracing, tracing } from '../telemetry/tracing';
import { temporalTracing } from '../telemetry/temporal-tracing';
import { closeServer, listen } from './http-server';

const noop = () => undefined;
/** How long a stopping API lets its requests under way finish (a log stream never does). */
const SHUTDOWN_GRACE_MS = 3000;
/** The bundler's report is long and says nothing an operator needs. */
const quietSdkLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

/** The process runs the API, the worker or both, and is given the settings of what it runs. */
export type ServiceProcessOptions = CommonOptions &
  (
    | { api: true; worker: false; config: ApiConfig }
    | { api: false; worker: true; config: WorkerConfig }
    | { api: true; worker: true; config: ServiceConfig }
  );

interface CommonOptions {
  log: Logger;
  /** A prebuilt workflow bundle; without one the worker bundles `workflows/` at start. */
  workflowBundle?: WorkflowBundle;
  /**
   * Whether the worker also runs the stack's singletons: the webhook and meter-event relays and
   * the billing schedules (true unless said otherwise). A process without them serves and runs
   * jobs and leaves those to another; the test suite's second lane runs so.
   */
  background?: boolean;
  /** How webhook target hostnames are resolved (tests inject one); the system's by default. */
  resolve?: Resolver;
  /** Where this process's Temporal SDK serves its metrics (installSdkRuntime); /metrics includes them. */
  sdkMetricsPort?: number;
}

export interface ServiceProcess {
  url?: string;
  db: Knex;
  services?: Services;
  /** Every mounted API route with its role rule (the authorization test walks it). */
  routes?: RouteInfo[];
  /** The workflow worker, when this process runs one (its status tells how many runs it caches). */
  worker?: Worker;
  /** The webhook relay, which runs beside the worker. */
  relay?: WebhookRelay;
  /** The worker's own health and metrics server, when this process runs a worker without the API. */
  workerUrl?: string;
  stop(): Promise<void>;
}

/**
 * Runs the API, the worker, or both in one process. With both, the Temporal client shares the
 * worker's NativeConnection so job starts are eager: the first workflow task runs here at once.
 */
export async function startServiceProcess(opts: ServiceProcessOptions): Promise<ServiceProcess> {
  const { log } = opts;
  const config: SharedSettings = opts.config;
  if (!config.databaseUrl || !config.temporal.address)
    throw new Error('DATABASE_URL and TEMPORAL_ADDRESS are required');
  const clientTracing = temporalTracing(
    startTracing(config.tracing, opts.api && opts.worker ? 'compute' : opts.api ? 'compute-api' : 'compute-worker'),
  );
  const db = createDb(config.databaseUrl, { log, max: config.dbPoolMax });
  observePoolWaits(db);
  const webhookSecrets = createSecretBox(await resolveWebhookSecretKeys(config));
  // Secrets left clear by an older version, or sealed with a key no longer first, are sealed now.
  const resealed = await sealStoredSecrets(db, webhookSecrets);
  if (resealed) log.info({ resealed }, 'sealed stored webhook secrets with the current key');
  const dataKeys = createDataKeys(db, await resolveCodecKeys(config));
  // After a rotation of TEMPORAL_CODEC_KEYS, the data keys are wrapped with the new first key.
  const rewrapped = await dataKeys.rewrap();
  if (rewrapped) log.info({ rewrapped }, 'wrapped workspace data keys with the current operator key');
  // Env left clear by an older version is sealed by a worker (one pass over the jobs table).
  const envsSealed = opts.worker ? await sealStoredEnvs(db, dataKeys) : 0;
  if (envsSealed) log.info({ envsSealed }, 'sealed job env left clear in PostgreSQL');
  // Every payload of ours reaches Temporal sealed (src/temporal/payload-codec.ts).
  const { codec, knowJob, dataConverter: sealing } = await computeCodec(db, config, dataKeys);
  const dataConverter = config.temporal.payloadCodec ? sealing : undefined;
  const native = opts.worker ? await NativeConnection.connect({ address: config.temporal.address }) : undefined;
  const stops: Array<() => Promise<void>> = [];

  const webhookWorkflowsOn = (client: Client) =>
    createWebhookWorkflows(client, {
      taskQueue: config.temporal.webhookTaskQueue,
      deliveryTimeoutMs: config.webhooks.timeoutMs,
    });
  let relay: WebhookRelay | undefined;
  let worker: Worker | undefined;
  const workers: Worker[] = [];
  const moreMetrics = opts.sdkMetricsPort ? sdkMetricsFrom(opts.sdkMetricsPort) : undefined;
  const workersRunning = async () => {
    const stopped = workers
      .filter((w) => w.getState() !== 'RUNNING')
      .map((w) => `${w.options.taskQueue}: ${w.getState()}`);
    if (stopped.length) throw new Error(stopped.join(', '));
  };
  const temporalCheck =
    (c: { workflowService: { describeNamespace(r: { namespace: string }): Promise<unknown> } }) => () =>
      c.workflowService.describeNamespace({ namespace: config.temporal.namespace });
  if (native && opts.worker) {
    const { worker: settings, billing } = opts.config;
    // One bundle for both workers: the jobs' and the webhook deliveries'.
    const workflowBundle =
      opts.workflowBundle ??
      (settings.workflowBundlePath
        ? { codePath: settings.workflowBundlePath }
        : await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: quietSdkLogger }));
    const common = {
      connection: native,
      namespace: config.temporal.namespace,
      workflowBundle,
      // A worker killed outright leaves its workflows' next tasks on its sticky queue until this
      // passes; a live worker takes them in milliseconds, so a short wait only speeds recovery.
      stickyQueueScheduleToStartTimeout: '2s',
      interceptors: { activity: [activityLogging(log)] },
      dataConverter,
      // Both workers poll as the same version of the deployment, or both unversioned.
      workerDeploymentOptions: deploymentOptionsOf(settings.deployment),
    } satisfies Partial<WorkerOptions>;
    // The worker's own client: reset runs asked after, schedules kept, webhook lanes woken.
    const workerClient = new Client({
      connection: native,
      namespace: config.temporal.namespace,
      dataConverter,
      interceptors: clientTracing,
    });
    worker = await Worker.create({
      ...common,
      taskQueue: config.temporal.taskQueue,
      activities: createActivities({
        db,
        cancelGraceMs: settings.cancelGraceMs,
        periods: periodSettingsOf(billing),
        resetRunOf: resetRunsOf(workerClient),
      }),
      maxCachedWorkflows: settings.workflowCacheSize,
    });
    // Lanes are short-lived and replay in a few events: a small cache serves them.
    const webhookWorker = await Worker.create({
      ...common,
      taskQueue: config.temporal.webhookTaskQueue,
      activities: createWebhookActivities({
        db,
        settings: config.webhooks,
        secrets: webhookSecrets,
        resolve: opts.resolve,
      }),
      maxCachedWorkflows: 100,
    });
    workers.push(worker, webhookWorker);
    for (const w of [worker, webhookWorker]) {
      const run = w.run();
      run.catch((err) => log.error({ err, taskQueue: w.options.taskQueue }, 'worker stopped'));
      stops.push(async () => {
        w.shutdown();
        await run.catch(() => undefined);
      });
    }
    // Once this version's pollers have reached the server, which registers it in the deployment.
    if (settings.deployment?.promoteIfNoCurrent) await promoteIfNoCurrent(workerClient, settings.deployment, log);
    // The stack's singletons; a process started with `background: false` leaves them to another.
    if (opts.background ?? true) {
      // Best effort: a worker that cannot reach the schedule API still runs jobs; the next start retries.
      if (billing.meterTickSeconds > 0)
        await ensureMeterSchedule(workerClient, {
          taskQueue: config.temporal.taskQueue,
          tickSeconds: billing.meterTickSeconds,
          log,
        }).catch((err) => log.error({ err: String(err) }, 'could not make sure the meter schedule exists'));
      // Its drafts wait a meter tick: a worker that leaves the meter alone leaves this one alone too.
      if (billing.meterTickSeconds > 0)
        await ensurePeriodSchedule(workerClient, {
          taskQueue: config.temporal.taskQueue,
          period: billing.period,
          log,
        }).catch((err) => log.error({ err: String(err) }, 'could not make sure the billing periods schedule exists'));
      relay = createWebhookRelay({
        db,
        workflows: webhookWorkflowsOn(workerClient),
        log,
        retentionDays: config.webhooks.retentionDays,
      }).start(config.webhooks.relayIntervalMs);
      stops.unshift(() => relay!.stop());
      const stripe = stripeClient(config.stripe);
      if (stripe) {
        const meterEvents = createMeterEventRelay({ db, stripe, eventName: config.stripe.meterEventName, log }).start(
          config.stripe.meterRelayIntervalMs,
        );
        stops.unshift(() => meterEvents.stop());
      }
    }
  }

  let url: string | undefined;
  let services: Services | undefined;
  let routes: RouteInfo[] | undefined;
  if (opts.api) {
    const api = opts.config;
    const connection = native ?? (await Connection.connect({ address: config.temporal.address }));
    const client = new Client({
      connection,
      namespace: config.temporal.namespace,
      dataConverter,
      interceptors: clientTracing,
    });
    const workflows = createJobWorkflowClient(client, {
      taskQueue: config.temporal.taskQueue,
      retryAfterSeconds: config.dependencyRetryAfterSeconds,
      eager: Boolean(native),
      knowJob,
    });
    const notifier = new Notifier(config.databaseUrl, log, api.auth.notifyPingMs);
    await notifier.start();
    const store = createObjectStore(config);
    if (!store) log.warn('no S3_ENDPOINT configured: artifact uploads and downloads answer 503');
    // Made at start when missing; if storage is down now, the first upload reports it as a 503.
    await store?.ensureBucket().catch((err) => log.warn({ err: String(err) }, 'could not ensure the artifact bucket'));
    services = createServices({
      db,
      workflows,
      webhookWorkflows: webhookWorkflowsOn(client),
      resolve: opts.resolve,
      webhookSecrets,
      dataKeys,
      notifier,
      config: api,
      log,
      jwtSecret: await resolveJwtSecret(api),
      store,
    });
    const readiness = createReadiness({
      db,
      temporal: temporalCheck(connection),
      store,
      ...(native && { extra: { workers: workersRunning } }),
    });
    const { handler, routes: mounted } = createApp({
      services,
      config: api,
      log,
      health: { readiness, moreMetrics },
      codec,
    });
    const removeQueueDepth = addQueueDepthSource(() => services!.jobs.openJobCounts());
    const removeServiceState = addServiceStateSource(() => readServiceState(db, api.durations.agentLostAfterMs));
    stops.push(async () => {
      removeQueueDepth();
      removeServiceState();
      await services!.keyStamps.flush();
      await services!.leaseStore.stop();
    });
    routes = mounted;
    // Deadlines are checked every second rather than Node's default 30 s. The request line and
    // headers may take 64 KiB, not Node's 16: a list query with every filter at its documented
    // limit, percent-encoded, comes near 16, and one past a limit must get the surface's 400
    // naming the field, not a bare 431 from the parser that no client of ours is told about.
    const server = http.createServer({ connectionsCheckingInterval: 1000, maxHeaderSize: 64 * 1024 }, handler);
    // Long polls last up to 30 s; keep sockets open longer than that.
    server.keepAliveTimeout = 65_000;
    applyRequestDeadlines(server, {
      headersTimeoutMs: api.http.headersTimeoutMs,
      requestTimeoutMs: api.http.requestTimeoutMs,
      exempt: (req) => req.method === 'PUT' && (req.url ?? '').startsWith(ARTIFACT_UPLOAD_PREFIX),
    });
    await listen(server, api.http.port, api.http.host);
    const { port } = server.address() as AddressInfo;
    url = `http://${api.http.host}:${port}`;
    const stopReconciler = startReconciler({
      jobs: services.jobs,
      transitions: services.transitions,
      config: api,
      log,
    });
    stops.unshift(async () => {
      stopReconciler();
      // Waiting polls answer empty, so their agents poll again elsewhere, and the answers and
      // requests under way are written before the pool they need goes.
      services!.agents.stopPolls();
      await closeServer(server, SHUTDOWN_GRACE_MS);
      await notifier.stop();
      if (!native) await connection.close();
    });
  }

  let workerUrl: string | undefined;
  if (native && !opts.api) {
    const { worker: settings } = opts.config;
    // A worker alone answers health probes and scrapes on a small port of its own.
    const readiness = createReadiness({
      db,
      temporal: temporalCheck(native),
      store: createObjectStore(config),
      extra: { workers: workersRunning },
    });
    const app = new Koa();
    app.use(requestContext());
    app.use(healthRoutes({ readiness, moreMetrics }).routes());
    const server = http.createServer(app.callback());
    await listen(server, settings.port, settings.host);
    workerUrl = `http://${settings.host}:${(server.address() as AddressInfo).port}`;
    // Its probes and scrapes are answered at once: nothing under way is worth a grace.
    stops.unshift(() => closeServer(server, 0));
  }

  return {
    url,
    workerUrl,
    db,
    services,
    routes,
    worker,
    relay,
    async stop() {
      for (const stop of stops) await stop();
      // Flushed, not shut: another service in this process may share the provider (the tests').
      await tracing()?.spanProcessor.forceFlush();
      await native?.close();
      await db.destroy();
    },
  };
}
