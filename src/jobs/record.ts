import type { FailureReason, JobState } from '../../workflows/definitions';
import { type StoredEnv, redactedEnv } from './env-at-rest';
import { traceIdOf } from '../telemetry/tracing';

/** A job as the services return it, independent of either HTTP surface. */
export interface Job {
  id: string;
  workspaceId: string;
  type: string;
  command: string;
  state: JobState;
  labels: Record<string, string>;
  selector: Record<string, string>;
  /** As stored: sealed (src/jobs/env-at-rest.ts); only an assignment opens it. */
  env: StoredEnv;
  timeoutSeconds: number;
  priority: number;
  pool: 'self' | 'managed';
  /** The managed pool's region that runs it; null for a `self` job. */
  region: string | null;
  retry: { maxAttempts: number; backoffSeconds: number };
  resources: Record<string, number> | null;
  artifactPaths: string[];
  /** What the job's attempts uploaded (CONTRACT §3). */
  artifacts: Array<{ id: string; name: string; size: number; sha256: string; createdAt: string }>;
  attempt: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  exitCode: number | null;
  runtimeMs: number | null;
  agentId: string | null;
  leaseId: string | null;
  failureReason: FailureReason | null;
  error: string | null;
  version: number;
  /** The W3C `traceparent` of its submit's span, when the API traced it (docs/guides/tracing.md). */
  traceParent: string | null;
}

/**
 * One attempt at a job, as `job_attempts` keeps it: the agent that held it and how it ended. Its
 * lease is left out: a lease is the agent's capability to write to the job, never shown.
 */
export interface JobAttempt {
  attempt: number;
  agentId: string;
  assignedAt: string;
  lastHeartbeatAt: string;
  endedAt: string | null;
  /** `result`, `timeout`, `cancelled`, `agent_lost`, `drain_deadline`, `deregistered`, `undelivered`, `reset` (workflows/job-model.ts). */
  endReason: string | null;
  /** What the agent's result reported, when it reported one. */
  exitCode: number | null;
  runtimeMs: number | null;
}

/**
 * The columns a Job is made of. Named rather than `*` where a statement is prepared once per
 * connection: a migration that adds a column then leaves the prepared statements valid.
 */
export const JOB_COLUMN_NAMES = [
  'id',
  'workspace_id',
  'type',
  'command',
  'state',
  'labels',
  'selector',
  'env',
  'timeout_seconds',
  'priority',
  'pool',
  'region',
  'retry',
  'resources',
  'artifacts_spec',
  'attempt',
  'created_at',
  'started_at',
  'finished_at',
  'exit_code',
  'runtime_ms',
  'agent_id',
  'lease_id',
  'failure_reason',
  'error',
  'version',
  'trace_parent',
] as const;

/**
 * SQL: what a job's attempts uploaded, as its record lists them, read from the artifacts table
 * (which src/artifacts owns; the job row keeps no copy). `jobId` is the SQL of the job's id.
 */
export const artifactsOf = (jobId: string) =>
  `(SELECT coalesce(jsonb_agg(jsonb_build_object(
      'id', a.id, 'name', a.name, 'size', a.size, 'sha256', a.sha256,
      'createdAt', to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    ) ORDER BY a.created_at, a.id), '[]'::jsonb) FROM artifacts a WHERE a.job_id = ${jobId})`;

/** The select list of a Job read from `jobs` (unaliased). */
export const JOB_COLUMNS = [...JOB_COLUMN_NAMES, `${artifactsOf('jobs.id')} AS artifacts`].join(', ');

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function jobFromRow(r: any): Job {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    type: r.type,
    command: r.command,
    state: r.state,
    labels: r.labels,
    selector: r.selector,
    env: r.env,
    timeoutSeconds: r.timeout_seconds,
    priority: r.priority,
    pool: r.pool,
    region: r.region ?? null,
    retry: r.retry,
    resources: r.resources,
    artifactPaths: r.artifacts_spec?.paths ?? [],
    artifacts: r.artifacts ?? [],
    attempt: r.attempt,
    createdAt: iso(r.created_at)!,
    startedAt: iso(r.started_at),
    finishedAt: iso(r.finished_at),
    exitCode: r.exit_code,
    runtimeMs: r.runtime_ms === null ? null : Number(r.runtime_ms),
    agentId: r.agent_id,
    leaseId: r.lease_id,
    failureReason: r.failure_reason,
    error: r.error,
    version: r.version,
    traceParent: r.trace_parent ?? null,
  };
}

/** The columns of a JobAttempt; `result` only by the two figures taken from it (it holds the lease too). */
export const ATTEMPT_COLUMNS = [
  'attempt',
  'agent_id',
  'assigned_at',
  'last_heartbeat_at',
  'ended_at',
  'end_reason',
  `result->'exitCode' AS exit_code`,
  `result->'runtimeMs' AS runtime_ms`,
].join(', ');

const numberOrNull = (v: unknown) => (typeof v === 'number' ? v : null);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function attemptFromRow(r: any): JobAttempt {
  return {
    attempt: r.attempt,
    agentId: r.agent_id,
    assignedAt: iso(r.assigned_at)!,
    lastHeartbeatAt: iso(r.last_heartbeat_at)!,
    endedAt: iso(r.ended_at),
    endReason: r.end_reason,
    exitCode: numberOrNull(r.exit_code),
    runtimeMs: numberOrNull(r.runtime_ms),
  };
}

/**
 * The fields a job shows outside the service, whoever shows it (both surfaces, webhook events;
 * CONTRACT §3), but for the three each names its own way (its ID, its state, its agent). Its
 * env's names only, each value redacted.
 */
export function publicFieldsOf(job: Job) {
  return {
    type: job.type,
    command: job.command,
    labels: job.labels,
    selector: job.selector,
    timeoutSeconds: job.timeoutSeconds,
    priority: job.priority,
    pool: job.pool,
    region: job.region,
    retry: job.retry,
    attempt: job.attempt,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    exitCode: job.exitCode,
    runtimeMs: job.runtimeMs,
    failureReason: job.failureReason,
    error: job.error,
    artifacts: job.artifacts,
    env: redactedEnv(job.env),
    traceId: traceIdOf(job.traceParent),
  };
}

/** CONTRACT §3's defaults for what a job leaves out of `resources`. */
export const DEFAULT_RESOURCES = { cpu: 1, memoryMb: 1024, gpu: 0 } as const;

/** The job's `resources` with the defaults filled in. */
export function resourcesOf(job: Pick<Job, 'resources'>): { cpu: number; memoryMb: number; gpu: number } {
  return { ...DEFAULT_RESOURCES, ...job.resources };
}
