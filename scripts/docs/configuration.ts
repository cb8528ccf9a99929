import { z } from 'zod';
import { EnvSchema } from '../../src/config/variables';
import { cell, code } from './openapi-markdown';

// docs/reference/configuration.md from the zod schema in src/config/variables.ts: which variables
// exist, what each accepts and its default come from the schema; what each means is said here,
// by topic. A variable the schema has and this file does not (or the reverse) fails the
// generator, and so `npm test`.

type Name = keyof typeof EnvSchema.shape;

interface Variable {
  meaning: string;
  /** What an unset variable without a schema default means. */
  unset?: string;
  /** What `npm run dev` (or the compose file) uses instead of the default. */
  instead?: string;
}

interface Section {
  title: string;
  intro?: string;
  variables: Partial<Record<Name, Variable>>;
}

export const SECTIONS: Section[] = [
  {
    title: 'Processes and logging',
    variables: {
      NODE_ENV: {
        meaning:
          '`development`, `production` or `test`. A forgotten value is production, which never logs login codes and needs `JWT_SECRET`, `WEBHOOK_SECRET_KEYS`, `TEMPORAL_CODEC_KEYS` and `SMTP_URL`',
        instead: '`npm run dev`: `development`',
      },
      LOG_LEVEL: { meaning: 'pino level' },
      OTEL_EXPORTER_OTLP_ENDPOINT: {
        meaning:
          'the OpenTelemetry collector spans are sent to with OTLP over HTTP (its base URL: `/v1/traces` is added), read by the API, the worker and `compute agent`; unset, nothing is traced (docs/guides/tracing.md). `npm run dev` sets it to the Jaeger it starts',
      },
      OTEL_TRACES_SAMPLER_ARG: {
        meaning:
          'the share of jobs whose trace is recorded, 0 to 1, decided at the submit (a caller’s sampled `traceparent` is always kept); every later part of a job follows its decision, and an unrecorded job’s `traceId` is null. The agent reads it for traces it starts itself',
      },
      OTEL_SERVICE_NAME: {
        meaning: 'the `service.name` of the process’s spans; default `compute-api`, `compute-worker`, `compute-agent`, or `compute` for the API and worker in one process',
      },
      HOST: { meaning: 'the address the API (and a worker’s own HTTP server) listens on' },
      PORT: { meaning: 'the API’s port' },
      WORKER_PORT: {
        meaning:
          '`npm run worker`’s own HTTP port (on `HOST`): `/healthz`, `/readyz`, `/metrics`; 0 picks a free one (its start line logs it). Several workers on one host need one each',
      },
      TEMPORAL_METRICS_PORT: {
        meaning:
          'loopback port where the Temporal SDK serves the worker’s own metrics; the worker’s `/metrics` includes them, so nothing scrapes it directly. 0: off. Several workers on one host need one each (a taken port stops the worker at start, naming it)',
      },
      PUBLIC_URL: { meaning: 'the API’s public base URL; when it is https the session cookie is `Secure` and named `__Host-compute_session`', unset: 'unset' },
    },
  },
  {
    title: 'PostgreSQL',
    variables: {
      DATABASE_URL: { meaning: 'PostgreSQL', unset: 'unset: `npm run dev` starts an embedded one' },
      DB_POOL_MAX: {
        meaning:
          'PostgreSQL connections per process (each API instance also holds one LISTEN connection); at most half of them are held in transactions across Temporal calls (a submit’s, a claim’s), the rest always serve other requests',
      },
    },
  },
  {
    title: 'Temporal',
    variables: {
      TEMPORAL_ADDRESS: { meaning: 'the Temporal frontend', unset: 'unset: `npm run dev` starts the dev server' },
      TEMPORAL_NAMESPACE: { meaning: 'the namespace of every run' },
      TEMPORAL_TASK_QUEUE: { meaning: 'the task queue of the job runs, the meter and the billing periods; workers of one deployment share it' },
      WEBHOOK_TASK_QUEUE: {
        meaning: 'the task queue of webhook deliveries, apart from the jobs’ so a flood of deliveries never queues ahead of a job’s transitions',
        unset: 'unset: `<TEMPORAL_TASK_QUEUE>-webhooks`',
      },
      TEMPORAL_UI_PORT: { meaning: 'the UI port of the dev server `npm run dev` starts' },
      TEMPORAL_UI_URL: {
        meaning: 'the Temporal UI as a person’s browser reaches it: the portal links each job’s run there, and the codec endpoint admits its origin (CORS). Unset, the portal shows no link',
        unset: 'unset',
        instead: '`npm run dev`: the UI it starts; compose: `http://localhost:8233`',
      },
      TEMPORAL_WORKFLOW_BUNDLE: {
        meaning:
          'a workflow bundle built ahead by `npm run build:workflows` from the same sources: the worker loads it instead of bundling `workflows/` at every start (a second or more of CPU). The image builds it',
        unset: 'unset: bundled at start',
        instead: 'compose: `dist/workflow-bundle.js`',
      },
      TEMPORAL_DEPLOYMENT_NAME: {
        meaning:
          'Worker Versioning: the Worker Deployment this worker belongs to (no `.` or `:`). With `TEMPORAL_BUILD_ID` the worker polls as that version and gets tasks only once the version is current or ramping; a job’s run stays on the build it started on. How to roll out, ramp, roll back and retire a version: [upgrades](../guides/upgrades.md)',
        unset: 'unset: the worker is unversioned (every worker takes every task)',
        instead: 'compose: `compute`',
      },
      TEMPORAL_BUILD_ID: {
        meaning: 'Worker Versioning: this build’s ID in the deployment, different for every build of `workflows/`; set with `TEMPORAL_DEPLOYMENT_NAME` or not at all',
        unset: 'unset: unversioned',
        instead: 'compose: `${COMPUTE_BUILD_ID}`, `1` unless set',
      },
      TEMPORAL_PROMOTE_IF_NO_CURRENT: {
        meaning:
          '`true`: at start the worker makes its own version current when nobody has set the deployment’s routing yet (a fresh install, or the first versioned deploy over unversioned workers). It never replaces a current or ramping version, nor a return to unversioned workers',
        instead: 'compose: `true`',
      },
      WORKFLOW_CACHE_SIZE: {
        meaning:
          'job runs the worker keeps in memory (each weighs up to about 190 KiB); beyond it the least recently used are evicted and replayed from their short history when they next get work. 0 turns the cache off',
      },
      PAYLOAD_CODEC: { meaning: '`off` runs without the payload codec (payloads reach Temporal in clear): only for `bench:dispatch`’s comparison; refused in production' },
    },
  },
  {
    title: 'Secrets at rest',
    intro: 'Each is a comma-separated list of base64 keys of 32 bytes (`openssl rand -base64 32`): the first seals, every listed key opens. The same list goes to every API and worker.',
    variables: {
      WEBHOOK_SECRET_KEYS: {
        meaning: 'seal webhook signing secrets in PostgreSQL (AES-256-GCM); required in production',
        unset: 'unset: outside production, one kept in the data folder',
      },
      TEMPORAL_CODEC_KEYS: {
        meaning:
          'wrap each workspace’s data key (AES-256-GCM), which seals its jobs’ `env` in PostgreSQL and their Temporal payloads. To rotate, put a new key first and restart: each process re-wraps the data keys at its start (nothing sealed with them changes). Required in production',
        unset: 'unset: outside production, one kept in the data folder (`codec-key`)',
      },
    },
  },
  {
    title: 'Object storage and artifacts',
    variables: {
      S3_ENDPOINT: { meaning: 'object storage (MinIO or S3)', unset: 'unset: `npm run dev` starts MinIO' },
      S3_ACCESS_KEY: { meaning: 'object storage access key', unset: 'unset: `npm run dev`’s MinIO' },
      S3_SECRET_KEY: { meaning: 'object storage secret key', unset: 'unset: `npm run dev`’s MinIO' },
      S3_BUCKET: { meaning: 'the artifacts’ bucket, made at start when missing' },
      S3_REGION: { meaning: 'the bucket’s region' },
      S3_TIMEOUT_MS: { meaning: 'an object-storage call idle this long fails as 503 instead of hanging' },
      S3_PART_SIZE_BYTES: { meaning: 'uploads go to object storage in parts of this size (at least 5 MiB); about one part per upload is in memory' },
      ARTIFACT_MAX_BYTES: { meaning: 'largest artifact (10 GiB); above it 413 `request.too_large` and nothing is kept' },
      ARTIFACT_UPLOADS_MAX: {
        meaning: 'uploads one API instance streams at once (each holds about two parts in memory); past it 429 `rate_limit.exceeded` with Retry-After, which the agent retries',
      },
      ARTIFACT_URL_TTL_SECONDS: { meaning: 'default life of a presigned URL (at most 86400)' },
    },
  },
  {
    title: 'Jobs, agents and dispatch',
    variables: {
      AGENT_LOST_AFTER_MS: { meaning: 'a running job whose agent has not named it in a heartbeat for this long is requeued' },
      AGENT_LOSS_MAX_ATTEMPTS: { meaning: 'the agent loss that fails a job with `failureReason: agent_lost` (the third, by default)' },
      AGENT_LOSS_BACKOFF_MS: { meaning: 'backoff before requeueing after an agent loss (doubles per loss)' },
      CANCEL_GRACE_MS: { meaning: 'a cancelling job becomes cancelled after this without the agent’s confirmation' },
      HEARTBEAT_INTERVAL_SECONDS: { meaning: 'told to agents at register' },
      POLLS_PER_CREDENTIAL: { meaning: 'polls one credential may have open at once on one API instance; past it 429' },
      CLAIMS_IN_FLIGHT_MAX: { meaning: 'assignments one API instance asks workflows for at once; further polls wait their turn (within their `waitSeconds`)' },
      CHANGES_IN_FLIGHT_MAX: {
        meaning:
          'submits, cancels and retries one API instance sends Temporal at once; a quarter of it while agents’ hand-outs and results are under way (or were in the last second), when a workspace whose own jobs do not progress has one change at a time with rests between. Further ones wait their turn, up to 10 s, then 503 `dependency.unavailable` with Retry-After',
      },
      CLAIM_RESERVATION_SECONDS: { meaning: 'how long a claim keeps other pollers off a job while its workflow decides (longer than the 10 s call budget)' },
      POLL_HAND_OVER_MS: {
        meaning:
          'how long a poll that already holds a job goes on starting claims for more (at most a fifth of `AGENT_LOST_AFTER_MS`); a claim still under way at a third of `AGENT_LOST_AFTER_MS` is withdrawn (the job requeued without an agent loss) and the poll answers with what it holds',
      },
      POLL_CLAIM_SKIP_MAX_SECONDS: {
        meaning:
          'the longest a node’s renewed polls go without a claim while nothing was queued for it: a renewed poll whose node’s last claim on this instance found nothing, with no job notified on its queue since and the node unchanged, waits without claiming (0: every poll claims). A reservation left by a crashed claim is freed, with a notification, by the reconciler 5 to 10 s after it runs out (six passes per `RECONCILE_INTERVAL_MS`); this bound is for whatever else frees a row without one. Each empty claim skips for a random share of it, between three quarters and all, so a fleet that claimed together spreads out',
      },
      RECONCILE_INTERVAL_MS: {
        meaning:
          'how often the API settles submits interrupted by a crash and repairs rows behind their workflow; reservations of crashed claims are freed six times as often, apart, so a slow sweep holds none of them up',
      },
      IDEMPOTENCY_HOLD_MS: {
        meaning:
          'how long a request holds its `Idempotency-Key`: while it does, another request with the key is 409 `resource.conflict`; after it (a crash of the instance carrying the key), a retry finishes that same job',
      },
      DEPENDENCY_RETRY_AFTER_SECONDS: { meaning: 'Retry-After on 503 `dependency.unavailable`' },
    },
  },
  {
    title: 'Logs',
    variables: {
      LOG_LIMIT_BYTES: { meaning: 'per-job log budget (line bytes plus the overhead below); past it the head and the tail are kept' },
      LOG_LINE_OVERHEAD_BYTES: { meaning: 'what each stored line costs beyond its text (a row’s own weight)' },
      LOG_LIMIT_LINES: { meaning: 'most lines a job keeps, head and tail together' },
      LOG_LINES_IN_FLIGHT_MAX: {
        meaning:
          'log lines one API instance stores at once; a quarter of it while agents’ hand-outs and results are under way, when a job pushing more than that quarter within a second stores one push at a time with rests between. A push alone always goes in; others wait their turn, up to 10 s, then 503 with Retry-After (the agent pushes again)',
      },
      SSE_KEEPALIVE_MS: { meaning: 'comment keep-alive on log streams' },
      SSE_STREAMS_PER_CREDENTIAL: { meaning: 'open log streams one credential may hold on one API instance; past it 429' },
      SSE_BUFFER_BYTES: {
        meaning:
          'what a following log stream may have waiting for a slow client (at least 2 MiB, more than one page of frames); past it the stream is cut and the client resumes with Last-Event-ID',
      },
    },
  },
  {
    title: 'HTTP requests',
    variables: {
      BODY_LIMIT_BYTES: { meaning: 'request bodies above are 413 `request.too_large`' },
      HTTP_HEADERS_TIMEOUT_MS: { meaning: 'a client must send its request headers within this, or the connection is closed' },
      HTTP_REQUEST_TIMEOUT_MS: {
        meaning:
          '... and its whole request (body included) within this: past it 408 and the connection is closed. Uploads whose signed URL checks out are exempt; they have an idle timeout',
      },
      UPLOAD_IDLE_TIMEOUT_MS: { meaning: 'an artifact upload that sends nothing for this long is cut off; nothing of it is kept and its slot is freed' },
      TRUST_PROXY: { meaning: '`true` behind a proxy that sets `X-Forwarded-For`: the client address for per-address limits comes from it' },
      API_FAST_PATH: {
        meaning:
          '`false` sends every request through the framework: by default the agent protocol\'s calls (`nodes/heartbeat`, `poll`, `logs`, `result`) and `jobs/retrieve` with an `X-API-Key` and a plain JSON body skip its layers, with the same middleware and answers',
      },
      AUDIT_EXPORTS_PER_CREDENTIAL: { meaning: 'JSONL audit exports one credential may have open on one API instance; past it 429' },
      AUDIT_EXPORTS_PER_INSTANCE: {
        meaning: 'JSONL audit exports one API instance serves at once; past it 429 (a client that stops reading holds a slot, never a database connection)',
      },
    },
  },
  {
    title: 'Logins, sessions and credentials',
    variables: {
      JWT_SECRET: {
        meaning: 'HS256 signing secret, 32+ characters, the same on every API instance; required in production',
        unset: 'unset: outside production, one kept in the data folder',
      },
      JWT_PREVIOUS_SECRET: { meaning: 'a rotated-out secret: still verifies the tokens it signed, never signs', unset: 'unset' },
      JWT_ISSUER: { meaning: 'checked on every token' },
      JWT_AUDIENCE: { meaning: 'checked on every token' },
      JWT_TTL_SECONDS: { meaning: 'session token lifetime' },
      OTP_TTL_SECONDS: { meaning: 'a login code’s life' },
      OTP_MAX_TRIES: { meaning: 'wrong tries a login code takes' },
      OTP_MAX_PER_HOUR: { meaning: 'codes mailed per address and client address per hour; past it request-otp still answers 200 and sends nothing' },
      OTP_MAX_PER_HOUR_PER_IP: { meaning: 'codes mailed per client address per hour, over all e-mail addresses' },
      OTP_MAX_PER_HOUR_PER_EMAIL: { meaning: 'codes mailed per e-mail address per hour, over all client addresses' },
      OTP_MAX_FAILED_VERIFY_PER_HOUR_PER_IP: {
        meaning: 'wrong codes per client address per hour; past it verify-otp answers 429 with Retry-After (counted in PostgreSQL, shared by all instances)',
      },
      SMTP_URL: {
        meaning: 'mail relay for login codes (`smtp://` or `smtps://user:pass@host:port`); required in production. Outside production codes are also logged',
        unset: 'unset',
      },
      MAIL_FROM: { meaning: 'sender of login codes' },
      AUTH_FAILURES_PER_MINUTE: { meaning: 'refused credentials per client address per minute, per instance; past it 429 before any credential is looked up' },
      CREDENTIAL_CACHE_TTL_MS: {
        meaning: 'keys and sessions an API instance resolved are served from its memory for up to this long (0: never); a revocation reaches every instance through NOTIFY long before',
      },
      CREDENTIAL_CACHE_MAX_ENTRIES: { meaning: 'at most this many cached credentials of each kind per instance' },
      NOTIFY_PING_MS: {
        meaning: 'the LISTEN connection is pinged this often; one silent for twice this is replaced, and meanwhile nothing is served from the credential cache. Each ping also counts the other listeners on the database: with none, submits offer their jobs to this instance’s polls in memory rather than by NOTIFY',
      },
    },
  },
  {
    title: 'Request budgets and counts',
    variables: {
      RATE_LIMIT_PER_MINUTE: { meaning: 'Surface A budget per user per minute (shared by all API instances)' },
      RATE_LIMIT_PER_HOUR: { meaning: 'Surface A budget per user per hour (shared by all API instances)' },
      RATE_LIMIT_LEASE_MS: {
        meaning: 'an instance leases a caller’s budget from PostgreSQL in shares sized to about this much of that caller’s traffic (at most 1/20 of a limit)',
      },
      WEBHOOK_ENDPOINTS_MAX: { meaning: 'webhook endpoints a workspace may have; past it 409 `resource.conflict` with `details.limit`' },
      ACCESS_TOKENS_MAX: { meaning: 'live (not revoked, not expired) access tokens per workspace; past it 409 with `details.limit`' },
      WORKSPACES_CREATED_MAX: { meaning: 'workspaces one user may create (the personal one does not count); past it 409 with `details.limit`' },
      MEMBERS_MAX: { meaning: 'members per workspace; past it 409 with `details.limit`' },
    },
  },
  {
    title: 'Webhooks',
    variables: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: {
        meaning: 'allow webhook targets on loopback and private addresses; metadata addresses are refused always',
        instead: '`npm run dev`: `true`',
      },
      WEBHOOK_TIMEOUT_MS: { meaning: 'a 2xx within this is a delivered event' },
      WEBHOOK_FIRST_RETRY_MS: { meaning: 'the first retry’s delay, doubled per attempt up to the cap below, ±25% jitter (Temporal retries no sooner than about 1 s)' },
      WEBHOOK_MAX_RETRY_DELAY_MS: { meaning: 'the longest delay between two attempts' },
      WEBHOOK_RETRY_WINDOW_MS: { meaning: 'failed attempts are retried until this long after the first, then the delivery is `failed`' },
      WEBHOOK_SECRET_OVERLAP_MS: { meaning: 'after a rotation the previous secret signs too for this long' },
      WEBHOOK_RESPONSE_BODY_BYTES: { meaning: 'how much of a receiver’s answer the delivery log keeps' },
      WEBHOOK_RELAY_INTERVAL_MS: { meaning: 'how often each worker hands new events from the outbox to their deliveries' },
      WEBHOOK_RETENTION_DAYS: { meaning: 'events and delivery attempts older than this are removed (a redelivery of a removed event sends nothing)' },
    },
  },
  {
    title: 'Billing and Stripe',
    variables: {
      METER_TICK_SECONDS: { meaning: 'the usage meter’s tick (the Temporal Schedule `meter-<task queue>`); `0`: this worker leaves the schedule alone (and the periods schedule too)' },
      BILLING_PERIOD: {
        meaning:
          'a billing period: `month` (calendar months in UTC, closed at 00:00 on the 1st by the Temporal Schedule `billing-periods-<task queue>`) or a number of seconds (trials, tests)',
      },
      STRIPE_SECRET_KEY: {
        meaning: 'Stripe’s secret key; unset, checkout answers 403 `billing.not_available` and no meter events are sent',
        unset: 'unset',
        instead: '`npm run dev`: stripe-mock with a test key',
      },
      STRIPE_API_BASE: { meaning: 'where the Stripe SDK sends requests (stripe-mock in tests and `npm run dev`)', unset: 'unset: api.stripe.com' },
      STRIPE_WEBHOOK_SECRET: {
        meaning: 'the `whsec_` secret Stripe signs events with; required in production when `STRIPE_SECRET_KEY` is set; unset elsewhere, every event is refused',
        unset: 'unset',
        instead: '`npm run dev`: `whsec_compute_dev_only_not_a_secret`',
      },
      STRIPE_EVENT_TOLERANCE_SECONDS: { meaning: 'an event signed longer ago than this is refused (replays)' },
      STRIPE_METER_EVENT_NAME: { meaning: 'the Billing Meter usage is reported to, one event per priced entry, its value in micro-dollars' },
      STRIPE_METER_RELAY_INTERVAL_MS: { meaning: 'how often each worker sends the meter events still owed (each retried with backoff from 1 s, doubling to 1 h)' },
    },
  },
  {
    title: 'The CLI and the agent',
    variables: {
      COMPUTE_API_URL: { meaning: 'where the CLI reaches the API' },
      COMPUTE_API_KEY: { meaning: 'the key CLI commands send', unset: 'unset: the login session, else the key `npm run dev` keeps' },
      COMPUTE_CONFIG_DIR: { meaning: 'where `compute login` keeps its session (mode 0600)', unset: '`~/.config/compute`' },
      DISPLAY: { meaning: 'either this or `WAYLAND_DISPLAY` set: `compute billing checkout` opens the URL it prints with `xdg-open`', unset: 'the desktop’s' },
      WAYLAND_DISPLAY: { meaning: 'see `DISPLAY`', unset: 'the desktop’s' },
      COMPUTE_AGENT_KEY: { meaning: 'the agent’s key (rather than `--key`, which shows in `ps`)', unset: 'unset' },
      COMPUTE_AGENT_DIR: { meaning: 'where the agent keeps its node identity and job folders', unset: '`~/.compute-agent`' },
      AGENT_KILL_GRACE_MS: { meaning: 'the agent’s SIGTERM → SIGKILL grace for a job’s process group' },
    },
  },
  {
    title: '`npm run dev`',
    variables: {
      COMPUTE_DATA_DIR: { meaning: 'where `npm run dev` keeps everything', unset: '`.data`' },
      COMPUTE_TOOLS_DIR: { meaning: 'where the Go-built tools live (shared by clones)', unset: '`~/.cache/compute-tools`' },
      DEV_POSTGRES_PORT: { meaning: 'port of the PostgreSQL `npm run dev` starts' },
      DEV_TEMPORAL_PORT: { meaning: 'port of the Temporal dev server `npm run dev` starts' },
      DEV_MINIO_PORT: { meaning: 'port of the MinIO `npm run dev` starts' },
      DEV_MINIO_CONSOLE_PORT: { meaning: 'port of that MinIO’s console' },
      DEV_STRIPE_MOCK_PORT: { meaning: 'port of the stripe-mock `npm run dev` starts' },
      DEV_JAEGER_PORT: {
        meaning: 'port of the query API of the Jaeger `npm run dev` starts (unless OTEL_EXPORTER_OTLP_ENDPOINT is set)',
      },
      DEV_JAEGER_GRPC_PORT: { meaning: 'port of that Jaeger’s query gRPC listener' },
      DEV_OTLP_PORT: { meaning: 'port where that Jaeger takes OTLP over HTTP' },
    },
  },
];

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
}

const NO_MAX = Number.MAX_SAFE_INTEGER;
const literal = (v: unknown) => code(String(v));

/** What a variable accepts, from its JSON Schema: `integer 1–86400`, one of `a`, `b`, `URL`. */
function accepts(s: JsonSchema): string {
  if (s.anyOf) return s.anyOf.map(accepts).join(' or ');
  if (s.const !== undefined) return literal(s.const);
  if (s.enum) return s.enum.map(literal).join(', ');
  if (s.type === 'integer' || s.type === 'number') {
    const high = s.maximum !== undefined && s.maximum < NO_MAX ? s.maximum : undefined;
    if (s.minimum !== undefined && high !== undefined) return `${s.type} ${s.minimum}–${high}`;
    return s.minimum !== undefined ? `${s.type} ≥ ${s.minimum}` : s.type;
  }
  if (s.format === 'uri') return 'URL';
  if (s.minLength !== undefined && s.maxLength !== undefined) return `${s.minLength}–${s.maxLength} characters`;
  if (s.minLength !== undefined) return `at least ${s.minLength} characters`;
  return s.type ?? 'text';
}

/** Every schema variable in exactly one section, and no section naming one the schema lacks. */
export function checkSections(): void {
  const names = Object.keys(EnvSchema.shape);
  const listed = SECTIONS.flatMap((s) => Object.keys(s.variables));
  const missing = names.filter((n) => !listed.includes(n));
  const unknown = listed.filter((n) => !names.includes(n));
  const twice = listed.filter((n, i) => listed.indexOf(n) !== i);
  const problems = [
    missing.length && `not described: ${missing.join(', ')}`,
    unknown.length && `described but not in src/config/variables.ts: ${unknown.join(', ')}`,
    twice.length && `described twice: ${twice.join(', ')}`,
  ].filter(Boolean);
  if (problems.length) throw new Error(`scripts/docs/configuration.ts does not match the schema: ${problems.join('; ')}`);
}

export function configurationReference(): string {
  checkSections();
  const schema = z.toJSONSchema(EnvSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonSchema> };
  const lines = [
    '<!-- Generated by `npm run docs` (scripts/docs.ts) from the zod schema in src/config/variables.ts, with the meanings in scripts/docs/configuration.ts. Do not edit: change those. -->',
    '',
    '# Configuration',
    '',
    '`src/config/` is the only reader of the environment: `variables.ts` lists and validates every variable, `index.ts` reads them into a `Config` (its shape is `shape.ts`). A value the schema refuses stops the process at start, naming the variable.',
    '',
    '`npm run api`, `npm run worker` and `npm run dev` run Node with `--max-semi-space-size=64` (a 64 MiB young generation; `src/runtime/node-flags.ts` says why, [performance](../performance.md) what it measures); a deployment that starts `node` itself should pass it too.',
    '',
  ];
  for (const section of SECTIONS) {
    lines.push(`## ${section.title}`, '');
    if (section.intro) lines.push(section.intro, '');
    lines.push('| variable | default | accepts | meaning |', '|---|---|---|---|');
    for (const [name, v] of Object.entries(section.variables) as Array<[Name, Variable]>) {
      const s = schema.properties[name];
      const byDefault = s.default !== undefined ? literal(s.default) : (v.unset ?? 'unset');
      const withInstead = v.instead ? `${byDefault} (${v.instead})` : byDefault;
      lines.push(`| ${code(name)} | ${cell(withInstead)} | ${cell(accepts(s))} | ${cell(v.meaning)} |`);
    }
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
