import { z } from 'zod';

// Every environment variable the service reads, validated and defaulted, one section per process
// that owns it: what the API and the worker share, then the API's, the worker's, the CLI's, the
// reference agent's and `npm run dev`'s own. Each process parses only the variables it reads
// (./processes), so a bad value of another process's variable never stops it.
// docs/reference/configuration.md is generated from these schemas (`npm run docs`).

const int = (def: number) => z.coerce.number().int().nonnegative().default(def);

/** Comma-separated base64 keys of 32 bytes each, the first current: a key list that rotates. */
const base64Keys = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const keys = (v ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean)
      .map((k) => Buffer.from(k, 'base64'));
    if (keys.some((k) => k.length !== 32))
      ctx.addIssue({ code: 'custom', message: 'each key must be base64 of 32 bytes (openssl rand -base64 32)' });
    return keys.length ? keys : undefined;
  });

/** Read by the API and the worker alike: where the shared parts are, and the rules both apply. */
export const SharedVariables = z.object({
  // Production unless said otherwise: a forgotten NODE_ENV never logs login codes or invents a JWT secret.
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Where spans go with OTLP over HTTP (the collector's base URL; `/v1/traces` is added). Unset,
  // nothing is traced. The agent reads it too. docs/guides/tracing.md
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    // Empty is unset (compose passes `${OTEL_EXPORTER_OTLP_ENDPOINT:-}`).
    .regex(/^$|^https?:\/\/[^/\s]+/, 'an http(s) URL, e.g. http://127.0.0.1:4318')
    .optional(),
  // The share of jobs whose trace is recorded, 0 to 1 (each job's parts follow its submit's decision).
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  // The service name spans carry; default compute-api, compute-worker, compute-agent or compute (both in one).
  OTEL_SERVICE_NAME: z.string().optional(),
  // The API listens here; a worker alone serves its health and metrics here.
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().optional(),
  DB_POOL_MAX: int(20),
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('compute-jobs'),
  // Webhook deliveries get a queue (and worker slots) of their own: a flood of them never queues
  // ahead of a job's transitions. Default: the job queue's name with `-webhooks`.
  WEBHOOK_TASK_QUEUE: z.string().optional(),
  // `off` runs without the payload codec: for the dispatch bench's comparison only (refused in production).
  PAYLOAD_CODEC: z.enum(['on', 'off']).default('on'),
  // The operator's keys that wrap each workspace's data key (job env at rest, Temporal payloads):
  // the same form and rotation as WEBHOOK_SECRET_KEYS. Required in production.
  TEMPORAL_CODEC_KEYS: base64Keys,
  S3_ENDPOINT: z.string().optional(),
  S3_ACCESS_KEY: z.string().optional(),
  S3_SECRET_KEY: z.string().optional(),
  S3_BUCKET: z.string().default('compute-artifacts'),
  S3_REGION: z.string().default('us-east-1'),
  S3_TIMEOUT_MS: int(15_000),
  S3_PART_SIZE_BYTES: z.coerce
    .number()
    .int()
    .min(5 * 1024 * 1024)
    .default(8 * 1024 * 1024),
  COMPUTE_DATA_DIR: z.string().optional(),
  CANCEL_GRACE_MS: int(30_000),
  DEPENDENCY_RETRY_AFTER_SECONDS: int(5),
  // Webhooks (CONTRACT §7). Private and loopback targets only where the operator says so
  // (`npm run dev` does); metadata addresses never.
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z.enum(['true', 'false']).default('false'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).default(15_000),
  WEBHOOK_FIRST_RETRY_MS: z.coerce.number().int().min(1).default(5_000),
  WEBHOOK_MAX_RETRY_DELAY_MS: z.coerce.number().int().min(1).default(3_600_000),
  WEBHOOK_RETRY_WINDOW_MS: z.coerce.number().int().min(1).default(86_400_000),
  WEBHOOK_SECRET_OVERLAP_MS: z.coerce.number().int().min(0).default(86_400_000),
  WEBHOOK_RESPONSE_BODY_BYTES: z.coerce.number().int().min(0).max(65_536).default(2048),
  WEBHOOK_RELAY_INTERVAL_MS: z.coerce.number().int().min(10).default(250),
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(2).default(30),
  // Keys that seal endpoint secrets at rest (AES-256-GCM): comma-separated base64 of 32 bytes
  // each. The first seals, every one opens, so a new key goes first and the old one stays listed
  // until every instance has restarted. Required in production; elsewhere one is kept in the data folder.
  WEBHOOK_SECRET_KEYS: base64Keys,
  // Stripe (CONTRACT §9): our database is the truth, Stripe is downstream. Without a secret key
  // checkout answers 503 and no meter events are sent; STRIPE_API_BASE points the SDK at
  // stripe-mock (tests, `npm run dev`). The signing secret is required wherever Stripe is on,
  // except in development, which uses a fixed one it prints.
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_API_BASE: z.string().url().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  STRIPE_EVENT_TOLERANCE_SECONDS: z.coerce.number().int().min(1).default(300),
  // The Billing Meter usage is reported to: one event per priced ledger entry, in micro-dollars.
  STRIPE_METER_EVENT_NAME: z.string().min(1).max(100).default('compute_usage_microusd'),
  STRIPE_METER_RELAY_INTERVAL_MS: z.coerce.number().int().min(10).default(5_000),
});

/** The API's own: its HTTP server, logins, limits and what it takes in. */
export const ApiVariables = z.object({
  PORT: int(3000),
  PUBLIC_URL: z.string().url().optional(),
  BODY_LIMIT_BYTES: int(1024 * 1024),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  UPLOAD_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  API_FAST_PATH: z.enum(['true', 'false']).default('true'),
  // The Temporal UI's address as a person's browser reaches it: the portal links each job's run
  // there (`npm run dev` uses the UI it starts). Unset: the portal shows no link.
  TEMPORAL_UI_URL: z.string().url().optional(),
  ARTIFACT_MAX_BYTES: int(10 * 1024 ** 3),
  ARTIFACT_UPLOADS_MAX: z.coerce.number().int().min(1).default(32),
  ARTIFACT_URL_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  AGENT_LOST_AFTER_MS: int(90_000),
  AGENT_LOSS_BACKOFF_MS: int(10_000),
  AGENT_LOSS_MAX_ATTEMPTS: int(3),
  HEARTBEAT_INTERVAL_SECONDS: int(30),
  SSE_KEEPALIVE_MS: int(15_000),
  LOG_LIMIT_BYTES: int(64 * 1024 * 1024),
  LOG_LIMIT_LINES: int(500_000),
  // At least 1: each line costing something is what bounds the rows a push may have to trim.
  LOG_LINE_OVERHEAD_BYTES: z.coerce.number().int().min(1).default(128),
  SSE_STREAMS_PER_CREDENTIAL: z.coerce.number().int().min(1).default(16),
  // Above one replay page (1 MiB of lines, about 1.3 MiB as frames), so a live page never cuts a stream by itself.
  SSE_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(2 * 1024 * 1024)
    .default(8 * 1024 * 1024),
  POLLS_PER_CREDENTIAL: z.coerce.number().int().min(1).default(4),
  // JSONL audit exports at once, per credential and per API process (429 past either). An export
  // holds no database connection while its client reads, only its socket and one page in memory.
  AUDIT_EXPORTS_PER_CREDENTIAL: z.coerce.number().int().min(1).default(2),
  AUDIT_EXPORTS_PER_INSTANCE: z.coerce.number().int().min(1).default(10),
  CLAIMS_IN_FLIGHT_MAX: z.coerce.number().int().min(1).default(8),
  CHANGES_IN_FLIGHT_MAX: z.coerce.number().int().min(1).default(8),
  // Log lines one API instance stores at once (a quarter of it while agents' jobs make progress).
  LOG_LINES_IN_FLIGHT_MAX: z.coerce.number().int().min(4).default(4000),
  // How long a poll holding a job goes on starting claims for more (capped at a fifth of AGENT_LOST_AFTER_MS);
  // one still under way at a third of AGENT_LOST_AFTER_MS is withdrawn and the poll answers.
  POLL_HAND_OVER_MS: z.coerce.number().int().min(0).default(1000),
  CLAIM_RESERVATION_SECONDS: z.coerce.number().int().min(11).default(30),
  // The longest a node's renewed polls go without a claim while nothing is queued for it (0: every
  // poll claims): a safety net, since what frees a row notifies its queue (an expired reservation
  // at the reconciler's next sweep).
  POLL_CLAIM_SKIP_MAX_SECONDS: z.coerce.number().int().min(0).default(600),
  RECONCILE_INTERVAL_MS: int(30_000),
  // Counts bounded per workspace (per user for workspaces created), so one workspace cannot
  // flood what all share: thousands of endpoints at one URL would fan every job out on the
  // shared delivery queue.
  WEBHOOK_ENDPOINTS_MAX: z.coerce.number().int().min(1).default(20),
  ACCESS_TOKENS_MAX: z.coerce.number().int().min(1).default(100),
  WORKSPACES_CREATED_MAX: z.coerce.number().int().min(1).default(20),
  MEMBERS_MAX: z.coerce.number().int().min(1).default(1000),
  // A request with an Idempotency-Key holds it this long at most; then another may carry it out.
  // Above a submit's own budget (a turn of up to 10 s, a start of up to 10 s).
  IDEMPOTENCY_HOLD_MS: int(30_000),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  JWT_PREVIOUS_SECRET: z.string().min(32).optional(),
  JWT_ISSUER: z.string().default('compute-job-service'),
  JWT_AUDIENCE: z.string().default('compute-api'),
  JWT_TTL_SECONDS: int(3600),
  OTP_TTL_SECONDS: int(600),
  OTP_MAX_TRIES: int(5),
  OTP_MAX_PER_HOUR: int(5),
  OTP_MAX_PER_HOUR_PER_IP: int(20),
  OTP_MAX_PER_HOUR_PER_EMAIL: int(20),
  OTP_MAX_FAILED_VERIFY_PER_HOUR_PER_IP: z.coerce.number().int().min(1).default(30),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Compute <no-reply@compute.localhost>'),
  RATE_LIMIT_PER_MINUTE: int(1000),
  RATE_LIMIT_PER_HOUR: int(30_000),
  RATE_LIMIT_LEASE_MS: z.coerce.number().int().min(1).default(1_000),
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  CREDENTIAL_CACHE_TTL_MS: int(60_000),
  NOTIFY_PING_MS: z.coerce.number().int().min(50).default(5_000),
  CREDENTIAL_CACHE_MAX_ENTRIES: z.coerce.number().int().min(1).default(10_000),
});

/** The worker's own: its health server, the runs it keeps, the bundle it loads, the usage meter. */
export const WorkerVariables = z.object({
  // The worker's own small HTTP server: /healthz, /readyz and /metrics (0: an ephemeral port).
  WORKER_PORT: int(3001),
  // Where the Temporal SDK serves its worker metrics for Prometheus, on loopback; the worker's
  // /metrics includes them, so nothing scrapes this port directly (0: off).
  TEMPORAL_METRICS_PORT: int(9464),
  // A workflow bundle built ahead (`npm run build:workflows`, the image's dist/workflow-bundle.js):
  // the worker loads it instead of bundling workflows/ at every start. Unset: bundled at start.
  TEMPORAL_WORKFLOW_BUNDLE: z.string().optional(),
  // Worker Versioning (docs/guides/upgrades.md): both set, the worker polls as this version of the
  // deployment and gets tasks only once the version is current or ramping; unset, it is unversioned.
  // Temporal refuses '.' and ':' in a deployment name (they join it to a build ID).
  TEMPORAL_DEPLOYMENT_NAME: z
    .string()
    .regex(/^[^.:]{1,255}$/, "1-255 characters, without '.' or ':'")
    .optional(),
  TEMPORAL_BUILD_ID: z.string().min(1).max(255).optional(),
  // A fresh install: the worker makes its version current at start when nobody has set the
  // deployment's routing yet; it never replaces a choice.
  TEMPORAL_PROMOTE_IF_NO_CURRENT: z.enum(['true', 'false']).default('false'),
  // Runs the worker keeps in memory (0: none). Past it the least recently used are evicted and
  // replayed from their history when they next get work.
  WORKFLOW_CACHE_SIZE: int(1000),
  // The usage meter's tick (a Temporal Schedule; CONTRACT §9): prices running attempts and applies
  // caps. 0: this worker leaves the schedule alone (a worker of some other task queue).
  METER_TICK_SECONDS: int(60),
  // How long a billing period lasts: `month` (calendar months in UTC, closed at 00:00 on the 1st by
  // the Temporal Schedule `billing-periods-<task queue>`) or a number of seconds (tests, trials).
  BILLING_PERIOD: z.union([z.literal('month'), z.coerce.number().int().min(1)]).default('month'),
});

/** The CLI's own: where it finds the API and keeps its session, the key it sends when given one. */
export const CliVariables = z.object({
  COMPUTE_API_URL: z.string().url().default('http://127.0.0.1:3000'),
  COMPUTE_CONFIG_DIR: z.string().optional(),
  // A graphical session, where `compute billing checkout` opens the URL it prints (xdg-open).
  DISPLAY: z.string().optional(),
  WAYLAND_DISPLAY: z.string().optional(),
  COMPUTE_API_KEY: z.string().optional(),
});

/** The reference agent's own (`compute agent`): its key, its folder, the grace a killed job gets. */
export const AgentVariables = z.object({
  COMPUTE_AGENT_KEY: z.string().optional(),
  COMPUTE_AGENT_DIR: z.string().optional(),
  AGENT_KILL_GRACE_MS: int(10_000),
});

/** `npm run dev`'s own: the ports of the services it starts, and where the local tools are built. */
export const DevVariables = z.object({
  TEMPORAL_UI_PORT: int(8233),
  COMPUTE_TOOLS_DIR: z.string().optional(),
  DEV_POSTGRES_PORT: int(55432),
  DEV_TEMPORAL_PORT: int(7233),
  DEV_MINIO_PORT: int(9000),
  DEV_MINIO_CONSOLE_PORT: int(9001),
  DEV_STRIPE_MOCK_PORT: int(12111),
  // Jaeger, which takes the spans unless OTEL_EXPORTER_OTLP_ENDPOINT names another collector.
  DEV_JAEGER_PORT: int(16686),
  DEV_JAEGER_GRPC_PORT: int(16685),
  DEV_OTLP_PORT: int(4318),
});

/** The sections, each variable in exactly one: the process that owns it (./processes says who else reads it). */
export const SECTIONS = {
  shared: SharedVariables,
  api: ApiVariables,
  worker: WorkerVariables,
  cli: CliVariables,
  agent: AgentVariables,
  dev: DevVariables,
} as const;

export type Section = keyof typeof SECTIONS;

/** Every variable the service reads, of every section (the deployment's check, a reference generator). */
export const EnvSchema = z.object({
  ...SharedVariables.shape,
  ...ApiVariables.shape,
  ...WorkerVariables.shape,
  ...CliVariables.shape,
  ...AgentVariables.shape,
  ...DevVariables.shape,
});

export type VariableName = keyof typeof EnvSchema.shape;

/** Every variable with its section and schema (its default, its description), section by section. */
export const ALL_VARIABLES = (Object.entries(SECTIONS) as Array<[Section, z.ZodObject<z.ZodRawShape>]>).flatMap(
  ([section, schema]) =>
    Object.entries(schema.shape).map(([name, type]) => ({ name: name as VariableName, section, schema: type })),
);
