/** PostgreSQL LISTEN/NOTIFY channels; payloads are IDs (and, for logs, a seq). */
export const NOTIFY = {
  /** A job of a workspace's own agents (`pool: self`) became claimable; payload: workspace ID. */
  jobQueued: 'compute_job_queued',
  /** A managed-pool job became claimable; payload: its region. */
  managedJobQueued: 'compute_managed_job_queued',
  /** A job's projection changed; payload: job ID. */
  jobState: 'compute_job_state',
  /** Log lines were stored; payload: `<job ID> <last seq stored>`. */
  jobLogs: 'compute_job_logs',
  /**
   * A credential changed (sent by triggers, so no writer can forget it); payload `key:<id>`, or
   * `member:<userId>:<workspaceId>`, or `all`.
   */
  credentials: 'compute_credentials',
} as const;

/**
 * The notification a poll of this agent waits on: its workspace's queue, or for a managed-pool
 * agent its region's. What wakes it (a submit, a requeue, its own drain) notifies the same.
 */
export const queuedChannelOf = (agent: { pool: string; region: string | null; workspace_id: string }): [channel: string, payload: string] =>
  agent.pool === 'managed' ? [NOTIFY.managedJobQueued, agent.region!] : [NOTIFY.jobQueued, agent.workspace_id];

/** SQL: the pg_notify that wakes the polls that may take the job row `alias` (its pool, region, workspace). */
export const notifyQueuedSql = (alias: string) =>
  `pg_notify(CASE WHEN ${alias}.pool = 'managed' THEN '${NOTIFY.managedJobQueued}' ELSE '${NOTIFY.jobQueued}' END,
             CASE WHEN ${alias}.pool = 'managed' THEN ${alias}.region ELSE ${alias}.workspace_id END)`;
