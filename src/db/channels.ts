/** PostgreSQL LISTEN/NOTIFY channels; payloads are IDs (and, for logs, a seq). */
export const NOTIFY = {
  /** A job became claimable; payload: workspace ID. */
  jobQueued: 'compute_job_queued',
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
