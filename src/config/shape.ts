import type { TracingSettings } from '../telemetry/tracing';
import type { WebhookSettings } from './webhooks';

// The shape of the settings, one type per process: what the API and the worker share, then the
// API's, the worker's, the CLI's, the reference agent's and `npm run dev`'s own. ./processes
// reads each from the environment; a process receives its own, and a function the part it uses.

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

/** Read by the API and the worker alike: where the shared parts are, and the rules both apply. */
export interface SharedSettings {
  env: 'development' | 'production' | 'test';
  logLevel: string;
  /** OTLP export of spans; off without an endpoint. */
  tracing: TracingSettings;
  databaseUrl?: string;
  /** Connections per process; each API request and activity holds one briefly. */
  dbPoolMax: number;
  temporal: {
    address?: string;
    namespace: string;
    taskQueue: string;
    /** Where webhook deliveries run, apart from the jobs. */
    webhookTaskQueue: string;
    /** TEMPORAL_CODEC_KEYS: the operator keys wrapping workspace data keys, first current. */
    codecKeys?: Buffer[];
    /** False only for a bench's comparison run: payloads then reach Temporal in clear. */
    payloadCodec: boolean;
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
  dataDir: string;
  dependencyRetryAfterSeconds: number;
  webhooks: WebhookSettings;
  stripe: StripeSettings;
}

/** Calendar months in UTC, or a fixed number of seconds. */
export type BillingPeriod = 'month' | { seconds: number };

/** Stripe, downstream of our database (CONTRACT §9). No secret key: Stripe is off. */
export interface StripeSettings {
  secretKey?: string;
  /** Where the SDK sends requests instead of api.stripe.com (stripe-mock). */
  apiBase?: string;
  /** Checks the signature of Stripe's events; without it every event is refused. */
  webhookSecret?: string;
  eventToleranceSeconds: number;
  meterEventName: string;
  /** How often the worker sends the meter events still owed. */
  meterRelayIntervalMs: number;
}

/** The API process: its HTTP server, logins, limits and what it takes in. */
export interface ApiSettings {
  http: {
    host: string;
    port: number;
    publicUrl?: string;
    /** Take the client address from X-Forwarded-For (behind a proxy that sets it). */
    trustProxy: boolean;
    /** The agent protocol's calls and jobs/retrieve skip Koa's layers (src/http/fast-path.ts). */
    fastPath: boolean;
    /** A client must send its request headers within this. */
    headersTimeoutMs: number;
    /** ... and its whole request within this; uploads instead get an idle timeout each. */
    requestTimeoutMs: number;
    uploadIdleTimeoutMs: number;
  };
  /** What the portal (the web page at `/`) is told: where a person's browser finds the Temporal UI. */
  portal: { temporalUiUrl?: string };
  /**
   * Largest artifact accepted (413 above); uploads one instance takes at once (each holds about
   * two parts in memory; past it 429 with Retry-After); default TTL of presigned URLs (≤ 24 h).
   */
  artifacts: { maxBytes: number; maxConcurrentUploads: number; urlTtlSeconds: number };
  /** Per workspace: webhook endpoints, live access tokens, members; per user: workspaces created (409 past each). */
  counts: { webhookEndpoints: number; accessTokens: number; workspacesCreated: number; members: number };
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
    /** Log lines stored at once per instance, a quarter while progress is under way (pushes take turns). */
    logLinesInFlightMax: number;
    /** How long a claim reserves a queued job while its workflow decides; outlives the call's budget. */
    claimReservationSeconds: number;
    /** How long a poll that holds a job goes on claiming more before it answers. */
    pollHandOverMs: number;
    /** The longest a node's renewed polls skip their claim while nothing was queued for it (src/agents/empty-claims.ts). */
    pollClaimSkipMaxMs: number;
  };
}

/** The worker process: its health and metrics server, the runs it keeps in memory, the usage meter. */
export interface WorkerSettings {
  /** HOST, where a worker alone serves /healthz, /readyz and /metrics (the API's own address too). */
  host: string;
  /** Port of the worker's /healthz, /readyz and /metrics. */
  port: number;
  /** Runs the worker keeps in memory; the least recently used beyond it are replayed when they next get work. */
  workflowCacheSize: number;
  /** Loopback port of the SDK's Prometheus exporter (0: off). */
  sdkMetricsPort: number;
  /** TEMPORAL_WORKFLOW_BUNDLE: a prebuilt bundle's path; unset, the worker bundles at start. */
  workflowBundlePath?: string;
  /** CANCEL_GRACE_MS: the meter prices a cancelling job's grace (the API times the job with it). */
  cancelGraceMs: number;
  /** The deployment version this worker polls as (Worker Versioning); absent, it is unversioned. */
  deployment?: DeploymentSettings;
}

/** TEMPORAL_DEPLOYMENT_NAME, TEMPORAL_BUILD_ID and TEMPORAL_PROMOTE_IF_NO_CURRENT. */
export interface DeploymentSettings {
  deploymentName: string;
  buildId: string;
  /** Make this version current at start when the deployment has none (a fresh install). */
  promoteIfNoCurrent: boolean;
}

/** The usage meter: how often its schedule ticks (the worker makes sure the schedule exists); how long a billing period lasts. */
export interface BillingSettings {
  meterTickSeconds: number;
  period: BillingPeriod;
}

/** What an API process reads. */
export type ApiConfig = SharedSettings & ApiSettings;

/** What a worker process reads. */
export type WorkerConfig = SharedSettings & { worker: WorkerSettings; billing: BillingSettings };

/** The API and the worker in one process (`npm run dev`, the tests, the benches). */
export type ServiceConfig = ApiConfig & WorkerConfig;

/** The CLI: where it finds the API and keeps its login session; the key it sends when given one. */
export interface CliConfig {
  apiUrl: string;
  configDir: string;
  apiKey?: string;
  /** A graphical session, where a URL the CLI prints is also opened. */
  desktop: boolean;
  /** Where `npm run dev` keeps its API key, which the CLI uses when given no other credential. */
  dataDir: string;
}

/** The reference agent (`compute agent`): the API it serves, its key, its folder, the kill grace. */
export interface AgentConfig {
  logLevel: string;
  apiUrl: string;
  /** COMPUTE_AGENT_KEY; without it the agent runs on COMPUTE_API_KEY. */
  key?: string;
  apiKey?: string;
  dir: string;
  killGraceMs: number;
  tracing: TracingSettings;
}

/** `npm run dev`: the API and the worker, the services it starts itself, and its agents. */
export type DevConfig = ServiceConfig & {
  /** Ports of the services `npm run dev` starts itself when no external one is configured. */
  dev: {
    postgresPort: number;
    temporalPort: number;
    temporalUiPort: number;
    minioPort: number;
    minioConsolePort: number;
    stripeMockPort: number;
    jaegerPort: number;
    jaegerGrpcPort: number;
    otlpPort: number;
  };
  toolsDir: string;
  /** Its agents' grace for a job they stop. */
  agent: { killGraceMs: number };
};
