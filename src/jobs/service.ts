import type { Principal } from '../auth/principal';
import { invalidState } from '../shared/errors';
import { createJobQueries } from './queries';
import { jobFromRow, type Job } from './record';
import { type SubmitDeps, createSubmits, specOf, timingsOf } from './submit';

export type JobsDeps = SubmitDeps;

/** Jobs as clients see them: submit (submit.ts), read (queries.ts), cancel and retry through the seam. */
export function createJobsService(deps: JobsDeps) {
  const { transitions, config } = deps;
  const queries = createJobQueries(deps.db);
  const { get } = queries;
  return {
    ...queries,
    ...createSubmits(deps),

    /** Cancels the job; `endedAs` says it had already ended (and was left as it is). */
    async cancel(principal: Principal, jobId: string): Promise<{ job: Job; endedAs?: string }> {
      const job = await get(principal, jobId);
      const { row, endedAs } = await transitions.cancel(jobId, job.workspaceId, principal);
      return { job: row ? jobFromRow(row) : await get(principal, jobId), endedAs };
    },

    async retry(principal: Principal, jobId: string): Promise<Job> {
      const job = await get(principal, jobId);
      if (job.state !== 'FAILED' && job.state !== 'TIMED_OUT') throw invalidState(`job is ${job.state}; only failed or timed-out jobs can be retried`);
      await transitions.retry(job.workspaceId, { spec: specOf(job), timings: timingsOf(config), attempt: job.attempt + 1, version: job.version, manualRetry: true }, principal);
      return get(principal, jobId);
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
