import type { ApiConfig } from '../config';
import type { JobSpec, JobTimings, JobWorkflowInput } from '../../workflows/definitions';
import type { Job } from './record';

/** The durations a job's run is started with. */
export const timingsOf = (config: Pick<ApiConfig, 'durations' | 'limits'>): JobTimings => ({
  agentLostAfterMs: config.durations.agentLostAfterMs,
  cancelGraceMs: config.durations.cancelGraceMs,
  agentLossBackoffMs: config.durations.agentLossBackoffMs,
  agentLossMaxAttempts: config.limits.agentLossMaxAttempts,
});

/** What a job's run is started with, from its record. */
export const specOf = (job: Job): JobSpec => ({
  jobId: job.id,
  workspaceId: job.workspaceId,
  type: job.type,
  command: job.command,
  labels: job.labels,
  timeoutSeconds: job.timeoutSeconds,
  retry: job.retry,
  createdAt: job.createdAt,
});

/** A submitted job's first run, as its submit starts it. */
export const firstRunOf = (job: Job, timings: JobTimings): JobWorkflowInput => ({
  spec: specOf(job),
  timings,
  attempt: 1,
  version: 0,
});
