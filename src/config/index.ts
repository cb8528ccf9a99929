import os from 'node:os';
import path from 'node:path';
import { EnvSchema } from './variables';
import type { WebhookSettings } from './webhooks';

// The one place that reads the environment (with ./variables, its schema). Everything else
// receives a Config.

export interface Durations {
  /** A running job whose agent has not named it in a heartbeat for this long is lost. */
  agentLostAfterMs: number;
  /** How long a CANCELLING job waits for the agent's confirmation. */
  cancelGraceMs: number;
  /** First backoff before requeueing a job whose agent was lost; doubles per loss. */
  agentLossBackoffMs: number;
  sseKeepAliveMs: number;
  reconcileIntervalMs: number;
  /** How long a request holds its Idempotency-Key before another may carry it out (after a crash). */
  idempotencyHoldMs: number;
}

export type { WebhookSettings } from './webhooks';

export interface Config {
  env: 'development' | 'production' | 'test';
  logLevel: string;
  http: {
    host: string;
    port: number;
    publicUrl?: string;
    /** Take the client address from X-Forwarded-For (behind a proxy that sets it). */
    trustProxy: boolean;
    /** A client must send its request headers within this. */
    headersTimeoutMs: number;
    /** ... and its whole request within this; uploads instead get an idle timeout each. */
    requestTimeoutMs: number;
    uploadIdleTimeoutMs: number;
    /** The worker process's health and metrics port. */
    workerPort: number;
  };
  databaseUrl?: string;
  /** Connections per process; each API request and activity holds one briefly. */
  dbPoolMax: number;
  temporal: {
    address?: string;
    namespace: string;
    taskQueue: string;
    /** Where webhook deliveries run, apart from the jobs. */
    webhookTaskQueue: string;
    uiPort: number;
    /** Runs the worker keeps in memory; the least recently used beyond it are replayed when they next get work. */
    workflowCacheSize: number;
    /** Loopback port of the SDK's Prometheus exporter (0: off). */
    metricsPort: number;
  };
  s3: {
    endpoint?: string;
    accessKey?: string;
    secretKey?: string;
    bucket: string;
    region: string;
    /** A MinIO call idle this long fails as 503 instead of hanging the request. */
    timeoutMs: number;
    /** Uploads go up in parts of this size; the API holds about one part per upload in memory. */
    partSizeBytes: number;
  };
  /**
   * Largest artifact accepted (413 above); uploads one instance takes at once (each holds about
   * two parts in memory; past it 429 with Retry-After); default TTL of presigned URLs (≤ 24 h).
   */
  artifacts: { maxBytes: number; maxConcurrentUploads: number; urlTtlSeconds: number };
  dataDir: string;
  toolsDir: string;
  durations: Durations;
  limits: {
    agentLossMaxAttempts: number;
    heartbeatIntervalSeconds: number;
    /**
     * A job's log budget: each line costs its UTF-8 bytes plus `logLineOverheadBytes` (about what
     * a row costs PostgreSQL besides its text), and a job keeps at most `logLinesPerJob` lines.
     * The head takes half of each, the rolling tail the other half.
     */
    logBytesPerJob: number;
    logLinesPerJob: number;
    logLineOverheadBytes: number;
    bodyBytes: number;
    /** Open log streams and long polls one credential may hold on one instance (429 past it). */
    sseStreamsPerCredential: number;
    /** What a live log stream may have waiting for a slow client before it is cut (the client resumes). */
    sseBufferBytes: number;
    pollsPerCredential: number;
    /** JSONL audit exports one credential may have open on one instance, and the instance in all (429 past either). */
    auditExportsPerCredential: number;
    auditExportsPerInstance: number;
    /** Assignments one instance asks workflows for at once; further polls wait their turn. */
    claimsInFlightMax: number;
    /** Submits, cancels and retries one instance sends Temporal at once; further ones wait their turn (up to 10 s, then 503). */
    changesInFlightMax: number;
    /** How long a claim reserves a queued job while its workflow decides; outlives the call's budget. */
    claimReservationSeconds: number;
  };
  /** Per workspace: webhook endpoints, live access tokens, members; per user: workspaces created (409 past each). */
  counts: { webhookEndpoints: number; accessTokens: number; workspacesCreated: number; members: number };
  dependencyRetryAfterSeconds: number;
  webhooks: WebhookSettings;
  auth: {
    /** HS256 signing secret; `npm run dev` keeps one in the data folder when unset, production requires it. */
    jwtSecret?: string;
    /** Still accepted for verification after a rotation; never used to sign. */
    jwtPreviousSecret?: string;
    jwtIssuer: string;
    jwtAudience: string;
    jwtTtlSeconds: number;
    otpTtlSeconds: number;
    otpMaxTries: number;
    /**
     * Codes mailed per hour: per (address, client IP), per client IP over all addresses, and per
     * address over all clients. Past any of them request-otp still answers 200 but sends nothing.
     */
    otpMaxPerHour: number;
    otpMaxPerHourPerIp: number;
    otpMaxPerHourPerEmail: number;
    /** Wrong codes one client IP may try per hour; past it verify-otp answers 429 before checking. */
    otpMaxFailedVerifyPerHourPerIp: number;
    /**
     * Keys and sessions resolved once are served from each instance's memory for up to this long
     * (0: never); a revocation reaches every instance at once through NOTIFY regardless.
     */
    credentialCacheTtlMs: number;
    credentialCacheMaxEntries: number;
    /**
     * How often the LISTEN connection is pinged; one silent for twice this stops the cache from
     * being trusted (a revocation reaches an instance cut off from PostgreSQL within this bound).
     */
    notifyPingMs: number;
  };
  /** SMTP for login codes; without it codes are only logged (development and test). */
  mail: { smtpUrl?: string; from: string };
  /**
   * Per user (or workspace), shared by all instances through leases that each cover about
   * `leaseMs` of a caller's traffic; refused credentials per client address, per instance.
   */
  rateLimits: { perMinute: number; perHour: number; leaseMs: number; authFailuresPerMinute: number };
  /** Where the CLI finds the API and keeps its login session; the key it sends when given one. */
  cli: { apiUrl: string; configDir: string; apiKey?: string };
  /** The reference agent: its key, where it keeps its node key and job folders, the kill grace. */
  agent: { key?: string; dir: string; killGraceMs: number };
  /** Ports of the services `npm run dev` starts itself when no external one is configured. */
  dev: { postgresPort: number; temporalPort: number; minioPort: number; minioConsolePort: number };
}

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
      workerPort: e.WORKER_PORT,
    },
    databaseUrl: e.DATABASE_URL,
    dbPoolMax: e.DB_POOL_MAX,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      webhookTaskQueue: e.WEBHOOK_TASK_QUEUE ?? `${e.TEMPORAL_TASK_QUEUE}-webhooks`,
      uiPort: e.TEMPORAL_UI_PORT,
      workflowCacheSize: e.WORKFLOW_CACHE_SIZE,
      metricsPort: e.TEMPORAL_METRICS_PORT,
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
      claimReservationSeconds: e.CLAIM_RESERVATION_SECONDS,
    },
    counts: {
      webhookEndpoints: e.WEBHOOK_ENDPOINTS_MAX,
      accessTokens: e.ACCESS_TOKENS_MAX,
      workspacesCreated: e.WORKSPACES_CREATED_MAX,
      members: e.MEMBERS_MAX,
    },
    dependencyRetryAfterSeconds: e.DEPENDENCY_RETRY_AFTER_SECONDS,
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
