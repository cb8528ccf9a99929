import type { Principal } from '../auth/principal';
import { reserveWorstCase } from '../billing/gate';
import { releaseReservation } from '../billing/ledger';
import { AppError, invalidState } from '../shared/errors';
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
      if (job.state !== 'FAILED' && job.state !== 'TIMED_OUT')
        throw invalidState(`job is ${job.state}; only failed or timed-out jobs can be retried`);
      // A managed job passes the credit gate again: its earlier reservation went with its end.
      if (job.pool === 'managed')
        await deps.db.transaction((trx) => reserveWorstCase(trx, job.workspaceId, job.id, job));
      try {
        await transitions.retry(
          job.workspaceId,
          {
            spec: specOf(job),
            timings: timingsOf(config),
            attempt: job.attempt + 1,
            version: job.version,
            manualRetry: true,
          },
          principal,
        );
      } catch (err) {
        // Not retried after all (a retry of it already under way keeps its own reservation).
        if (job.pool === 'managed' && !(err instanceof AppError && err.code === 'job.invalid_state'))
          await releaseReservation(deps.db, job.id).catch(() => undefined);
        throw err;
      }
      return get(principal, jobId);
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
