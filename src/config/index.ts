import os from 'node:os';
import path from 'node:path';
import { EnvSchema } from './variables';
import type { Config } from './shape';

// The one place that reads the environment (with ./variables, its schema). Everything else
// receives a Config.

export type { BillingPeriod, Config, Durations } from './shape';
export type { WebhookSettings } from './webhooks';

/**
 * `npm run dev`'s Stripe signing secret, fixed and public so a developer can sign a test event
 * (`compute billing simulate-event`); only ever used when NODE_ENV is development.
 */
export const DEV_STRIPE_WEBHOOK_SECRET = 'whsec_compute_dev_only_not_a_secret';

/** The database `npm run dev` runs when DATABASE_URL is unset; the CLI finds it the same way. */
export function databaseUrlOf(config: Config): string {
  return config.databaseUrl ?? `postgres://postgres:postgres@127.0.0.1:${config.dev.postgresPort}/compute`;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && e.STRIPE_SECRET_KEY && !e.STRIPE_WEBHOOK_SECRET) {
    throw new Error('Invalid configuration: STRIPE_WEBHOOK_SECRET is required in production when STRIPE_SECRET_KEY is set (the whsec_ secret of the webhook endpoint in Stripe)');
  }
  if (e.NODE_ENV === 'production' && e.PAYLOAD_CODEC === 'off') {
    throw new Error('Invalid configuration: PAYLOAD_CODEC=off is for benchmarks only; production always seals Temporal payloads');
  }
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    http: {
      host: e.HOST,
      port: e.PORT,
      publicUrl: e.PUBLIC_URL,
      trustProxy: e.TRUST_PROXY === 'true',
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      uploadIdleTimeoutMs: e.UPLOAD_IDLE_TIMEOUT_MS,
    },
    portal: { temporalUiUrl: e.TEMPORAL_UI_URL?.replace(/\/+$/, '') },
    worker: { port: e.WORKER_PORT, workflowCacheSize: e.WORKFLOW_CACHE_SIZE, sdkMetricsPort: e.TEMPORAL_METRICS_PORT },
    databaseUrl: e.DATABASE_URL,
    dbPoolMax: e.DB_POOL_MAX,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      webhookTaskQueue: e.WEBHOOK_TASK_QUEUE ?? `${e.TEMPORAL_TASK_QUEUE}-webhooks`,
      uiPort: e.TEMPORAL_UI_PORT,
      codecKeys: e.TEMPORAL_CODEC_KEYS,
      payloadCodec: e.PAYLOAD_CODEC === 'on',
      workflowBundlePath: e.TEMPORAL_WORKFLOW_BUNDLE,
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
    artifacts: { maxBytes: e.ARTIFACT_MAX_BYTES, maxConcurrentUploads: e.ARTIFACT_UPLOADS_MAX, urlTtlSeconds: e.ARTIFACT_URL_TTL_SECONDS },
    dataDir: path.resolve(e.COMPUTE_DATA_DIR ?? '.data'),
    toolsDir: path.resolve(e.COMPUTE_TOOLS_DIR ?? path.join(os.homedir(), '.cache', 'compute-tools')),
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
    },
    counts: {
      webhookEndpoints: e.WEBHOOK_ENDPOINTS_MAX,
      accessTokens: e.ACCESS_TOKENS_MAX,
      workspacesCreated: e.WORKSPACES_CREATED_MAX,
      members: e.MEMBERS_MAX,
    },
    dependencyRetryAfterSeconds: e.DEPENDENCY_RETRY_AFTER_SECONDS,
    billing: { meterTickSeconds: e.METER_TICK_SECONDS, period: e.BILLING_PERIOD === 'month' ? 'month' : { seconds: e.BILLING_PERIOD } },
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
    cli: {
      apiUrl: e.COMPUTE_API_URL,
      configDir: path.resolve(e.COMPUTE_CONFIG_DIR ?? path.join(os.homedir(), '.config', 'compute')),
      apiKey: e.COMPUTE_API_KEY,
      desktop: Boolean(e.DISPLAY || e.WAYLAND_DISPLAY),
    },
    agent: {
      key: e.COMPUTE_AGENT_KEY,
      dir: path.resolve(e.COMPUTE_AGENT_DIR ?? path.join(os.homedir(), '.compute-agent')),
      killGraceMs: e.AGENT_KILL_GRACE_MS,
    },
    dev: {
      postgresPort: e.DEV_POSTGRES_PORT,
      temporalPort: e.DEV_TEMPORAL_PORT,
      minioPort: e.DEV_MINIO_PORT,
      minioConsolePort: e.DEV_MINIO_CONSOLE_PORT,
      stripeMockPort: e.DEV_STRIPE_MOCK_PORT,
    },
  };
}

/** What a job's command inherits from the agent: enough to run a shell, none of the agent's secrets. */
const JOB_INHERITED_VARIABLES = ['PATH', 'HOME', 'LANG', 'TERM', 'TMPDIR'];

/** The environment a job starts with: the allow-listed variables of the agent's, then `extra`. */
export function jobEnvironment(extra: Record<string, string>): Record<string, string> {
  const inherited = Object.fromEntries(
    JOB_INHERITED_VARIABLES.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])),
  );
  return { ...inherited, ...extra };
}

/** `npm run dev`'s settings: development unless NODE_ENV says otherwise (elsewhere the default is production). */
export function loadDevConfig(): Config {
  // A developer points webhooks at a receiver on this machine (`compute webhooks listen`).
  return loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });
}

/** The environment for a child process we spawn (a tool build, a server): ours plus `extra`. */
export function childEnvironment(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, ...extra };
}
