/** PostgreSQL LISTEN/NOTIFY channels; payloads are IDs. */
export const NOTIFY = {
  /** A job became claimable; payload: workspace ID. */
  jobQueued: 'compute_job_queued',
  /** A job's projection changed; payload: job ID. */
  jobState: 'compute_job_state',
  /** Log lines were stored; payload: job ID. */
  jobLogs: 'compute_job_logs',
} as const;
