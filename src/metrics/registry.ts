import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// The process's Prometheus series, one registry per process as prom-client intends: the code that
// moves a figure imports it from here. Several service instances in one process (tests) add up.

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'compute_' });

const registers = [registry];

/** Seconds: from a millisecond API answer to a 30 s long poll. */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpRequests = new Counter({
  name: 'compute_http_requests_total',
  help: 'HTTP requests answered, by route pattern (unmatched paths share one label), method and status',
  labelNames: ['route', 'method', 'status'] as const,
  registers,
});

export const httpFastRequests = new Counter({
  name: 'compute_http_fast_path_requests_total',
  help: 'Requests the fast path took (API_FAST_PATH), by route; the rest of their count is in compute_http_requests_total',
  labelNames: ['route'] as const,
  registers,
});

export const httpDuration = new Histogram({
  name: 'compute_http_request_duration_seconds',
  help: 'Time to answer an HTTP request (to the first byte of a stream), by route, method and status',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});

export const rateLimitLeases = new Counter({
  name: 'compute_rate_limit_leases_total',
  help: "Leases of request budget from the shared store, by how they went: aboard a job write's transaction, alone (a request waited for it, or no write came in time) or failed (the store did not answer)",
  labelNames: ['how'] as const,
  registers,
});

export const rateLimitRefusals = new Counter({
  name: 'compute_rate_limit_refusals_total',
  help: 'Requests refused with 429 (rate limits, per-credential stream and poll caps, upload slots), by route',
  labelNames: ['route'] as const,
  registers,
});

export const dispatchLatency = new Histogram({
  name: 'compute_dispatch_latency_seconds',
  help: "From a job's submit to its first hand-out to an agent",
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
  registers,
});

export const longPollsWaiting = new Gauge({
  name: 'compute_long_polls_waiting',
  help: 'Agent polls on this instance waiting for a job',
  registers,
});

export const claimsRun = new Counter({
  name: 'compute_claims_total',
  help: "Claims that long polls ran: on the poll's arrival (`start`) or after a wake (`wake`), by outcome (a job assigned, none, too late for its poll, or skipped: a renewed poll of a node whose last claim found nothing, with nothing queued for it since; `handed`: no claim, a submit handed the waiting poll its job)",
  labelNames: ['after', 'outcome'] as const,
  registers,
});

export const sseStreamsOpen = new Gauge({
  name: 'compute_sse_streams_open',
  help: 'Live log streams (SSE) open on this instance',
  registers,
});

export const logLinesIngested = new Counter({
  name: 'compute_log_lines_ingested_total',
  help: 'Log lines agents pushed that were stored (duplicates of a retried push not counted)',
  registers,
});

export const artifactBytes = new Counter({
  name: 'compute_artifact_bytes_total',
  help: 'Artifact bytes moved through this instance, by direction (upload, download)',
  labelNames: ['direction'] as const,
  registers,
});

/** Reads the live jobs per workspace and state; the series is filled at scrape time. */
export type QueueDepthSource = () => Promise<Array<{ workspaceId: string; state: string; count: number }>>;

const queueDepthSources = new Set<QueueDepthSource>();

/** The gauge asks the first registered source (every instance reads the same database). */
export function addQueueDepthSource(source: QueueDepthSource): () => void {
  queueDepthSources.add(source);
  return () => queueDepthSources.delete(source);
}

new Gauge({
  name: 'compute_jobs',
  help: 'Jobs not yet terminal, by workspace and state (every API instance reports the same figures)',
  labelNames: ['workspace', 'state'] as const,
  registers,
  async collect() {
    this.reset();
    const [source] = queueDepthSources;
    if (!source) return;
    for (const row of await source()) this.set({ workspace: row.workspaceId, state: row.state }, row.count);
  },
});

export const dbPoolWait = new Histogram({
  name: 'compute_db_pool_wait_seconds',
  help: "Time a statement waited for one of this process's database connections (the pool's acquire)",
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
  registers,
});

/** What only the database knows, read at scrape time (src/runtime/service-state.ts). */
export interface ServiceState {
  /** Queued jobs by pool and region ('' for self-hosted), and how long the oldest claimable one has waited. */
  queues: Array<{ pool: string; region: string; depth: number; oldestWaitSeconds: number }>;
  /** Registered agents by pool, region and state (ONLINE, DRAINING whether or not jobs remain, OFFLINE). */
  agents: Array<{ pool: string; region: string; state: string; count: number }>;
  /** The period's spend over each cap a workspace set (a display ratio; the ledger's sums stay exact). */
  caps: Array<{ workspace: string; cap: 'soft' | 'hard'; usedRatio: number }>;
  /** Webhook events written and not yet handed to their delivery runs. */
  webhookOutbox: { unrelayed: number; oldestSeconds: number };
}

/** The gauges below fill from it at scrape time. */
export type ServiceStateSource = () => Promise<ServiceState>;

const stateSources = new Set<ServiceStateSource>();
/** One read serves every gauge of a scrape: they are collected one after another. */
let stateRead: { at: number; state: ReturnType<ServiceStateSource> } | undefined;

/** The gauges ask the first registered source (every instance reads the same database). */
export function addServiceStateSource(source: ServiceStateSource): () => void {
  stateSources.add(source);
  return () => {
    stateSources.delete(source);
    stateRead = undefined;
  };
}

async function serviceState() {
  const [source] = stateSources;
  if (!source) return undefined;
  if (!stateRead || Date.now() - stateRead.at > 1000) stateRead = { at: Date.now(), state: source() };
  return stateRead.state;
}

new Gauge({
  name: 'compute_queue_depth',
  help: 'Queued jobs by pool and region (empty for self-hosted agents), those in a retry backoff included',
  labelNames: ['pool', 'region'] as const,
  registers,
  async collect() {
    this.reset();
    for (const q of (await serviceState())?.queues ?? []) this.set({ pool: q.pool, region: q.region }, q.depth);
  },
});

new Gauge({
  name: 'compute_queue_oldest_wait_seconds',
  help: 'How long the oldest claimable queued job has waited for an agent, by pool and region',
  labelNames: ['pool', 'region'] as const,
  registers,
  async collect() {
    this.reset();
    for (const q of (await serviceState())?.queues ?? [])
      this.set({ pool: q.pool, region: q.region }, q.oldestWaitSeconds);
  },
});

new Gauge({
  name: 'compute_agents',
  help: 'Registered agents by pool, region and state (ONLINE, DRAINING, OFFLINE: silent past the loss window)',
  labelNames: ['pool', 'region', 'state'] as const,
  registers,
  async collect() {
    this.reset();
    for (const a of (await serviceState())?.agents ?? [])
      this.set({ pool: a.pool, region: a.region, state: a.state }, a.count);
  },
});

new Gauge({
  name: 'compute_spend_cap_used_ratio',
  help: "A workspace's spend this period over each cap it set (soft, hard): 1 is the cap",
  labelNames: ['workspace', 'cap'] as const,
  registers,
  async collect() {
    this.reset();
    for (const c of (await serviceState())?.caps ?? []) this.set({ workspace: c.workspace, cap: c.cap }, c.usedRatio);
  },
});

new Gauge({
  name: 'compute_webhook_outbox_unrelayed',
  help: 'Webhook events written and not yet handed to their delivery runs',
  registers,
  async collect() {
    const state = await serviceState();
    if (state) this.set(state.webhookOutbox.unrelayed);
  },
});

new Gauge({
  name: 'compute_webhook_outbox_oldest_seconds',
  help: 'Age of the oldest webhook event not yet handed to its delivery run (0 when none waits)',
  registers,
  async collect() {
    const state = await serviceState();
    if (state) this.set(state.webhookOutbox.oldestSeconds);
  },
});

export const jobsFinished = new Counter({
  name: 'compute_jobs_finished_total',
  help: 'Jobs this process wrote into a terminal state, by state',
  labelNames: ['state'] as const,
  registers,
});

export const jobsRequeued = new Counter({
  name: 'compute_jobs_requeued_total',
  help: 'Jobs this process wrote back to QUEUED for another attempt (a retry after a failure, a timeout or an agent loss)',
  registers,
});

export const attemptsEnded = new Counter({
  name: 'compute_attempts_ended_total',
  help: 'Attempts this process wrote as ended, by reason (result, timeout, cancelled, agent_lost, drain_deadline, deregistered, undelivered, reset)',
  labelNames: ['reason'] as const,
  registers,
});

export const webhookAttempts = new Counter({
  name: 'compute_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts, by outcome: succeeded, retrying (failed, another attempt scheduled) or failed (given up, or a redelivery that failed)',
  labelNames: ['outcome'] as const,
  registers,
});

export const meterLastTick = new Gauge({
  name: 'compute_meter_last_tick_timestamp_seconds',
  help: 'When a meter tick last finished on this worker (Unix seconds; 0 before its first)',
  registers,
});
