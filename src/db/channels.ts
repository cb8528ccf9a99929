/** PostgreSQL LISTEN/NOTIFY channels; payloads are IDs (and, for logs, a seq). */
export const NOTIFY = {
  /**
   * A job of a workspace's own agents (`pool: self`) became claimable; payload `<workspace ID>
   * <job ID> <selector JSON>` (the selector left out past 4000 bytes), or `<workspace ID>
   * node:<node ID>` to wake that node's polls (a drain, a removal).
   */
  jobQueued: 'compute_job_queued',
  /** A managed-pool job became claimable; payload as jobQueued's, with its region for the workspace. */
  managedJobQueued: 'compute_managed_job_queued',
  /** A job's projection reached a terminal state (the only change anyone listens for); payload: job ID. */
  jobState: 'compute_job_state',
  /** Log lines were stored; payload: `<job ID> <last seq stored>`. */
  jobLogs: 'compute_job_logs',
  /**
   * A credential changed (sent by triggers, so no writer can forget it); payload `key:<id>`, or
   * `member:<userId>:<workspaceId>`, or `all`.
   */
  credentials: 'compute_credentials',
  /**
   * An instance's LISTEN connection is up (`hello <name> <token>`): the instances of a database
   * learn at once that a change only one of them listened for now has another listener
   * (src/db/notifier.ts).
   */
  instances: 'compute_instances',
} as const;

/**
 * The notification a poll of this agent waits on: its workspace's queue, or for a managed-pool
 * agent its region's. What wakes it (a submit, a requeue, its own drain) notifies the same.
 */
export const queuedChannelOf = (agent: {
  pool: string;
  region: string | null;
  workspace_id: string;
}): [channel: string, payload: string] =>
  agent.pool === 'managed' ? [NOTIFY.managedJobQueued, agent.region!] : [NOTIFY.jobQueued, agent.workspace_id];

/** SQL: the channel a job row `alias` is offered on when it becomes claimable (its pool's). */
export const queuedChannelSql = (alias: string) =>
  `CASE WHEN ${alias}.pool = 'managed' THEN '${NOTIFY.managedJobQueued}' ELSE '${NOTIFY.jobQueued}' END`;

/**
 * SQL: the payload that offers the job row `alias` to a poll that may take it (its region or
 * workspace, and its selector for matching labels in memory). PostgreSQL caps a payload at 8000
 * bytes: a selector past 4000 is left out, and any poll of the queue may be offered the job.
 */
export const queuedPayloadSql = (alias: string) =>
  `CASE WHEN ${alias}.pool = 'managed' THEN ${alias}.region ELSE ${alias}.workspace_id END
   || ' ' || ${alias}.id
   || CASE WHEN octet_length(${alias}.selector::text) <= 4000 THEN ' ' || ${alias}.selector::text ELSE '' END`;

/** SQL: the pg_notify that offers the job row `alias` to a poll that may take it. */
export const notifyQueuedSql = (alias: string) => `pg_notify(${queuedChannelSql(alias)}, ${queuedPayloadSql(alias)})`;
