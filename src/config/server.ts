import os from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import {
  ApiProcessVariables,
  BillingVariables,
  DatabaseVariables,
  DevProcessVariables,
  type Env,
  ServiceProcessVariables,
  ToolsVariables,
  WorkerProcessVariables,
  invalidConfiguration,
  parseVariables,
} from './processes';
import { productionProblems } from './production';
import type {
  ApiConfig,
  ApiSettings,
  BillingSettings,
  DeploymentSettings,
  DevConfig,
  ServiceConfig,
  SharedSettings,
  WorkerConfig,
  WorkerSettings,
} from './shape';
import type { ApiVariables, SharedVariables, WorkerVariables } from './variables';

// The service's processes: the API, the worker, both in one, and `npm run dev`.

type SharedVars = z.output<typeof SharedVariables>;
type ApiVars = z.output<typeof ApiVariables>;
type WorkerVars = z.output<typeof WorkerVariables>;

/**
 * `npm run dev`'s Stripe signing secret, fixed and public so a developer can sign a test event
 * (`compute billing simulate-event`); only ever used when NODE_ENV is development.
 */
export const DEV_STRIPE_WEBHOOK_SECRET = 'whsec_compute_dev_only_not_a_secret';

const dataDirOf = (dir: string | undefined) => path.resolve(dir ?? '.data');

/** Parsed, then refused when production forbids what it says. */
function parseService<S extends z.ZodType<SharedVars>>(schema: S, env: Env, api: boolean): z.output<S> {
  const e = parseVariables(schema, env);
  const problems = productionProblems(e, api ? (e as SharedVars & ApiVars) : undefined);
  if (problems.length) throw invalidConfiguration(problems);
  return e;
}

function sharedOf(e: SharedVars): SharedSettings {
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    tracing: {
      endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
      serviceName: e.OTEL_SERVICE_NAME || undefined,
      sampleRatio: e.OTEL_TRACES_SAMPLER_ARG,
    },
    databaseUrl: e.DATABASE_URL,
    dbPoolMax: e.DB_POOL_MAX,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      webhookTaskQueue: e.WEBHOOK_TASK_QUEUE ?? `${e.TEMPORAL_TASK_QUEUE}-webhooks`,
      codecKeys: e.TEMPORAL_CODEC_KEYS,
      payloadCodec: e.PAYLOAD_CODEC === 'on',
    },
    s3: {
      endpoint: e.S3_ENDPOINT,
      accessKey: e.S3_ACCESS_KEY,
      secretKey: e.S3_SECRET_KEY,
      bucket: e.S3_BUCKET,
      region: e.S3_REGION,
      timeoutMs: e.S3_TIMEOUT_MS,
      partSizeBytes: e.S3_PART_SIZE_BYTES,
    },
    dataDir: dataDirOf(e.COMPUTE_DATA_DIR),
    dependencyRetryAfterSeconds: e.DEPENDENCY_RETRY_AFTER_SECONDS,
    stripe: {
      secretKey: e.STRIPE_SECRET_KEY,
      apiBase: e.STRIPE_API_BASE,
      webhookSecret: e.STRIPE_WEBHOOK_SECRET ?? (e.NODE_ENV === 'development' ? DEV_STRIPE_WEBHOOK_SECRET : undefined),
      eventToleranceSeconds: e.STRIPE_EVENT_TOLERANCE_SECONDS,
      meterEventName: e.STRIPE_METER_EVENT_NAME,
      meterRelayIntervalMs: e.STRIPE_METER_RELAY_INTERVAL_MS,
    },
    webhooks: {
      allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true',
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      firstRetryMs: e.WEBHOOK_FIRST_RETRY_MS,
      maxRetryDelayMs: e.WEBHOOK_MAX_RETRY_DELAY_MS,
      retryWindowMs: e.WEBHOOK_RETRY_WINDOW_MS,
      secretOverlapMs: e.WEBHOOK_SECRET_OVERLAP_MS,
      responseBodyBytes: e.WEBHOOK_RESPONSE_BODY_BYTES,
      relayIntervalMs: e.WEBHOOK_RELAY_INTERVAL_MS,
      retentionDays: e.WEBHOOK_RETENTION_DAYS,
      secretKeys: e.WEBHOOK_SECRET_KEYS,
    },
  };
}

function apiOf(e: SharedVars & ApiVars): ApiSettings {
  return {
    http: {
      host: e.HOST,
      port: e.PORT,
      publicUrl: e.PUBLIC_URL,
      trustProxy: e.TRUST_PROXY === 'true',
      fastPath: e.API_FAST_PATH === 'true',
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      uploadIdleTimeoutMs: e.UPLOAD_IDLE_TIMEOUT_MS,
    },
    portal: { temporalUiUrl: e.TEMPORAL_UI_URL?.replace(/\/+$/, '') },
    artifacts: {
      maxBytes: e.ARTIFACT_MAX_BYTES,
      maxConcurrentUploads: e.ARTIFACT_UPLOADS_MAX,
      urlTtlSeconds: e.ARTIFACT_URL_TTL_SECONDS,
    },
    durations: {
      agentLostAfterMs: e.AGENT_LOST_AFTER_MS,
      cancelGraceMs: e.CANCEL_GRACE_MS,
      agentLossBackoffMs: e.AGENT_LOSS_BACKOFF_MS,
      sseKeepAliveMs: e.SSE_KEEPALIVE_MS,
      reconcileIntervalMs: e.RECONCILE_INTERVAL_MS,
      idempotencyHoldMs: e.IDEMPOTENCY_HOLD_MS,
    },
    limits: {
      agentLossMaxAttempts: e.AGENT_LOSS_MAX_ATTEMPTS,
      heartbeatIntervalSeconds: e.HEARTBEAT_INTERVAL_SECONDS,
      logBytesPerJob: e.LOG_LIMIT_BYTES,
      logLinesPerJob: e.LOG_LIMIT_LINES,
      logLineOverheadBytes: e.LOG_LINE_OVERHEAD_BYTES,
      bodyBytes: e.BODY_LIMIT_BYTES,
      sseStreamsPerCredential: e.SSE_STREAMS_PER_CREDENTIAL,
      sseBufferBytes: e.SSE_BUFFER_BYTES,
      pollsPerCredential: e.POLLS_PER_CREDENTIAL,
      auditExportsPerCredential: e.AUDIT_EXPORTS_PER_CREDENTIAL,
      auditExportsPerInstance: e.AUDIT_EXPORTS_PER_INSTANCE,
      claimsInFlightMax: e.CLAIMS_IN_FLIGHT_MAX,
      changesInFlightMax: e.CHANGES_IN_FLIGHT_MAX,
      logLinesInFlightMax: e.LOG_LINES_IN_FLIGHT_MAX,
      claimReservationSeconds: e.CLAIM_RESERVATION_SECONDS,
      pollHandOverMs: e.POLL_HAND_OVER_MS,
      pollClaimSkipMaxMs: e.POLL_CLAIM_SKIP_MAX_SECONDS * 1000,
    },
    counts: {
      webhookEndpoints: e.WEBHOOK_ENDPOINTS_MAX,
      accessTokens: e.ACCESS_TOKENS_MAX,
      workspacesCreated: e.WORKSPACES_CREATED_MAX,
      members: e.MEMBERS_MAX,
    },
    auth: {
      jwtSecret: e.JWT_SECRET,
      jwtPreviousSecret: e.JWT_PREVIOUS_SECRET,
      jwtIssuer: e.JWT_ISSUER,
      jwtAudience: e.JWT_AUDIENCE,
      jwtTtlSeconds: e.JWT_TTL_SECONDS,
      otpTtlSeconds: e.OTP_TTL_SECONDS,
      otpMaxTries: e.OTP_MAX_TRIES,
      otpMaxPerHour: e.OTP_MAX_PER_HOUR,
      otpMaxPerHourPerIp: e.OTP_MAX_PER_HOUR_PER_IP,
      otpMaxPerHourPerEmail: e.OTP_MAX_PER_HOUR_PER_EMAIL,
      otpMaxFailedVerifyPerHourPerIp: e.OTP_MAX_FAILED_VERIFY_PER_HOUR_PER_IP,
      credentialCacheTtlMs: e.CREDENTIAL_CACHE_TTL_MS,
      credentialCacheMaxEntries: e.CREDENTIAL_CACHE_MAX_ENTRIES,
      notifyPingMs: e.NOTIFY_PING_MS,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    rateLimits: {
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      perHour: e.RATE_LIMIT_PER_HOUR,
      leaseMs: e.RATE_LIMIT_LEASE_MS,
      authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
    },
  };
}

const billingOf = (e: Pick<WorkerVars, 'METER_TICK_SECONDS' | 'BILLING_PERIOD'>): BillingSettings => ({
  meterTickSeconds: e.METER_TICK_SECONDS,
  period: e.BILLING_PERIOD === 'month' ? 'month' : { seconds: e.BILLING_PERIOD },
});

function deploymentOf(e: WorkerVars): DeploymentSettings | undefined {
  const name = e.TEMPORAL_DEPLOYMENT_NAME;
  const buildId = e.TEMPORAL_BUILD_ID;
  if (!name && !buildId) {
    if (e.TEMPORAL_PROMOTE_IF_NO_CURRENT === 'true')
      throw invalidConfiguration([
        'TEMPORAL_PROMOTE_IF_NO_CURRENT needs TEMPORAL_DEPLOYMENT_NAME and TEMPORAL_BUILD_ID',
      ]);
    return undefined;
  }
  if (!name || !buildId)
    throw invalidConfiguration(['TEMPORAL_DEPLOYMENT_NAME and TEMPORAL_BUILD_ID are set together or not at all']);
  return { deploymentName: name, buildId, promoteIfNoCurrent: e.TEMPORAL_PROMOTE_IF_NO_CURRENT === 'true' };
}

function workerOf(e: SharedVars & WorkerVars): { worker: WorkerSettings; billing: BillingSettings } {
  return {
    worker: {
      host: e.HOST,
      port: e.WORKER_PORT,
      workflowCacheSize: e.WORKFLOW_CACHE_SIZE,
      sdkMetricsPort: e.TEMPORAL_METRICS_PORT,
      workflowBundlePath: e.TEMPORAL_WORKFLOW_BUNDLE,
      cancelGraceMs: e.CANCEL_GRACE_MS,
      deployment: deploymentOf(e),
    },
    billing: billingOf(e),
  };
}

/** The API's settings (`npm run api`, the image's api). */
export function loadApiConfig(env: Env = process.env): ApiConfig {
  const e = parseService(ApiProcessVariables, env, true);
  return { ...sharedOf(e), ...apiOf(e) };
}

/** The worker's settings (`npm run worker`, the image's worker). */
export function loadWorkerConfig(env: Env = process.env): WorkerConfig {
  const e = parseService(WorkerProcessVariables, env, false);
  return { ...sharedOf(e), ...workerOf(e) };
}

/** The API and the worker in one process: the tests' and the benches' service. */
export function loadServiceConfig(env: Env = process.env): ServiceConfig {
  const e = parseService(ServiceProcessVariables, env, true);
  return { ...sharedOf(e), ...apiOf(e), ...workerOf(e) };
}

/** `npm run dev`'s settings: development unless NODE_ENV says otherwise (elsewhere the default is production). */
export function loadDevConfig(given: Env = process.env): DevConfig {
  // A developer points webhooks at a receiver on this machine (`compute webhooks listen`).
  const env = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...given, NODE_ENV: given.NODE_ENV ?? 'development' };
  const e = parseService(DevProcessVariables, env, true);
  return {
    ...sharedOf(e),
    ...apiOf(e),
    ...workerOf(e),
    dev: {
      postgresPort: e.DEV_POSTGRES_PORT,
      temporalPort: e.DEV_TEMPORAL_PORT,
      temporalUiPort: e.TEMPORAL_UI_PORT,
      minioPort: e.DEV_MINIO_PORT,
      minioConsolePort: e.DEV_MINIO_CONSOLE_PORT,
      stripeMockPort: e.DEV_STRIPE_MOCK_PORT,
      jaegerPort: e.DEV_JAEGER_PORT,
      jaegerGrpcPort: e.DEV_JAEGER_GRPC_PORT,
      otlpPort: e.DEV_OTLP_PORT,
    },
    toolsDir: toolsDirOf(e.COMPUTE_TOOLS_DIR),
    agent: { killGraceMs: e.AGENT_KILL_GRACE_MS },
  };
}

/** The database an operator's command and `npm run migrate` use: DATABASE_URL, else the one `npm run dev` runs. */
export function loadDatabaseUrl(env: Env = process.env): string {
  const e = parseVariables(DatabaseVariables, env);
  return e.DATABASE_URL ?? `postgres://postgres:postgres@127.0.0.1:${e.DEV_POSTGRES_PORT}/compute`;
}

/** The billing periods the worker closes, for an operator who closes one by hand. */
export const loadBillingSettings = (env: Env = process.env): BillingSettings =>
  billingOf(parseVariables(BillingVariables, env));

const toolsDirOf = (dir: string | undefined) => path.resolve(dir ?? path.join(os.homedir(), '.cache', 'compute-tools'));

/** Where the pinned local tools (Temporal, MinIO, Python venvs) are built: `npm run dev`, `npm run tools`, the tests. */
export const loadToolsDir = (env: Env = process.env): string =>
  toolsDirOf(parseVariables(ToolsVariables, env).COMPUTE_TOOLS_DIR);
