import type { FailureReason, JobState } from '../../workflows/definitions';

/** A job as the services return it, independent of either HTTP surface. */
export interface Job {
  id: string;
  workspaceId: string;
  type: string;
  command: string;
  state: JobState;
  labels: Record<string, string>;
  selector: Record<string, string>;
  env: Record<string, string>;
  timeoutSeconds: number;
  priority: number;
  pool: string;
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
}

/**
 * The columns a Job is made of. Named rather than `*` where a statement is prepared once per
 * connection: a migration that adds a column then leaves the prepared statements valid.
 */
export const JOB_COLUMNS = [
  'id', 'workspace_id', 'type', 'command', 'state', 'labels', 'selector', 'env', 'timeout_seconds', 'priority', 'pool', 'retry',
  'resources', 'artifacts_spec', 'artifacts', 'attempt', 'created_at', 'started_at', 'finished_at', 'exit_code', 'runtime_ms',
  'agent_id', 'lease_id', 'failure_reason', 'error', 'version',
].join(', ');

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
  };
}
