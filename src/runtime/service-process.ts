import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startReconciler } from '../jobs/reconciler';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { createActivities } from '../../activities';
import { createObjectStore } from '../artifacts/object-store';
import { resolveJwtSecret } from '../auth/jwt-secret';
import type { Config } from '../config';
import { createDb } from '../db/knex';
import { Notifier } from '../db/notifier';
import { createApp } from '../http/app';
import type { RouteInfo } from '../http/route-table';
import { ARTIFACT_UPLOAD_PREFIX } from '../artifacts/url-paths';
import { applyRequestDeadlines } from '../http/request-deadline';
import { type Services, createServices } from '../services';
import { createJobWorkflowClient } from '../temporal/job-workflow-client';
import { createWebhookWorkflows } from '../temporal/webhook-workflow-client';
import { type WebhookRelay, createWebhookRelay } from '../webhooks/relay';
import type { Resolver } from '../webhooks/target-guard';

export interface ServiceProcessOptions {
  config: Config;
  log: Logger;
  api: boolean;
  worker: boolean;
  /** A prebuilt workflow bundle; without one the worker bundles `workflows/` at start. */
  workflowBundle?: WorkflowBundleWithSourceMap;
  /** How webhook target hostnames are resolved (tests inject one); the system's by default. */
  resolve?: Resolver;
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
  stop(): Promise<void>;
}

/**
 * Runs the API, the worker, or both in one process. With both, the Temporal client shares the
 * worker's NativeConnection so job starts are eager: the first workflow task runs here at once.
 */
export async function startServiceProcess(opts: ServiceProcessOptions): Promise<ServiceProcess> {
  const { config, log } = opts;
  if (!config.databaseUrl || !config.temporal.address) throw new Error('DATABASE_URL and TEMPORAL_ADDRESS are required');
  const db = createDb(config.databaseUrl, { log, max: config.dbPoolMax });
  const native = opts.worker ? await NativeConnection.connect({ address: config.temporal.address }) : undefined;
  const stops: Array<() => Promise<void>> = [];

  const webhookWorkflowsOn = (client: Client) => createWebhookWorkflows(client, { taskQueue: config.temporal.taskQueue, deliveryTimeoutMs: config.webhooks.timeoutMs });
  let relay: WebhookRelay | undefined;
  let worker: Worker | undefined;
  let workerRun: Promise<void> | undefined;
  if (native) {
    worker = await Worker.create({
      connection: native,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath: require.resolve('../../workflows') }),
      activities: createActivities({ db, webhooks: { settings: config.webhooks, resolve: opts.resolve } }),
      maxCachedWorkflows: config.temporal.workflowCacheSize,
      // A worker killed outright leaves its workflows' next tasks on its sticky queue until this
      // passes; a live worker takes them in milliseconds, so a short wait only speeds recovery.
      stickyQueueScheduleToStartTimeout: '2s',
    });
    workerRun = worker.run();
    workerRun.catch((err) => log.error({ err }, 'worker stopped'));
    stops.push(async () => {
      worker!.shutdown();
      await workerRun!.catch(() => undefined);
    });
    const relayClient = new Client({ connection: native, namespace: config.temporal.namespace });
    relay = createWebhookRelay({ db, workflows: webhookWorkflowsOn(relayClient), log }).start(config.webhooks.relayIntervalMs);
    stops.unshift(() => relay!.stop());
  }

  let url: string | undefined;
  let services: Services | undefined;
  let routes: RouteInfo[] | undefined;
  if (opts.api) {
    const connection = native ?? (await Connection.connect({ address: config.temporal.address }));
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const workflows = createJobWorkflowClient(client, {
      taskQueue: config.temporal.taskQueue,
      retryAfterSeconds: config.dependencyRetryAfterSeconds,
      eager: Boolean(native),
    });
    const notifier = new Notifier(config.databaseUrl, log, config.auth.notifyPingMs);
    await notifier.start();
    const store = createObjectStore(config);
    if (!store) log.warn('no S3_ENDPOINT configured: artifact uploads and downloads answer 503');
    // Made at start when missing; if storage is down now, the first upload reports it as a 503.
    await store?.ensureBucket().catch((err) => log.warn({ err: String(err) }, 'could not ensure the artifact bucket'));
    services = createServices({ db, workflows, webhookWorkflows: webhookWorkflowsOn(client), resolve: opts.resolve, notifier, config, log, jwtSecret: await resolveJwtSecret(config), store });
    const { app, routes: mounted } = createApp({ services, config, log, db });
    routes = mounted;
    // Deadlines are checked every second rather than Node's default 30 s.
    const server = http.createServer({ connectionsCheckingInterval: 1000 }, app.callback());
    // Long polls last up to 30 s; keep sockets open longer than that.
    server.keepAliveTimeout = 65_000;
    applyRequestDeadlines(server, {
      headersTimeoutMs: config.http.headersTimeoutMs,
      requestTimeoutMs: config.http.requestTimeoutMs,
      exempt: (req) => req.method === 'PUT' && (req.url ?? '').startsWith(ARTIFACT_UPLOAD_PREFIX),
    });
    await new Promise<void>((resolve) => server.listen(config.http.port, config.http.host, resolve));
    const { port } = server.address() as AddressInfo;
    url = `http://${config.http.host}:${port}`;
    const stopReconciler = startReconciler({ jobs: services.jobs, transitions: services.transitions, config, log });
    stops.unshift(async () => {
      stopReconciler();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await notifier.stop();
      if (!native) await connection.close();
    });
  }

  return {
    url,
    db,
    services,
    routes,
    worker,
    relay,
    async stop() {
      for (const stop of stops) await stop();
      await native?.close();
      await db.destroy();
    },
  };
}
