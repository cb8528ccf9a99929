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

export const httpDuration = new Histogram({
  name: 'compute_http_request_duration_seconds',
  help: 'Time to answer an HTTP request (to the first byte of a stream), by route, method and status',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: LATENCY_BUCKETS,
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
  help: "Claims that long polls ran: on the poll's arrival (`start`) or after a wake (`wake`), by outcome (a job assigned, none, too late for its poll, or skipped: a renewed poll of a node whose last claim found nothing, with nothing queued for it since)",
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
