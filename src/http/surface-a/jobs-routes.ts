import type Router from '@koa/router';
import type { Services } from '../../services';
import { ManifestSchema } from '../../jobs/schemas';
import { invalidState } from '../../shared/errors';
import { principalOf } from '../authenticate';
import { type SurfaceAMount, operationGroup } from './operations';
import { JobA, JobListResponse, JobRef, ListJobsRequest, SubmitResponse } from './schemas';
import { jobA, stateA } from './render';

export function jobsRoutes(services: Services, at: SurfaceAMount): Router {
  const { router, mount } = operationGroup(at, 'jobs');

  mount({
    path: '/submit',
    action: 'job.submit',
    summary:
      'Enqueue a new job (not idempotent: a resubmit is a new job); a managed job the credit does not cover, or of a past_due or canceled subscription, is 402 resource.limit_reached; a managed job on hobby (no managed pool) is 403 billing.not_available',
    body: ManifestSchema,
    response: SubmitResponse,
    handle: async (ctx, manifest) => {
      const job = await services.jobs.submit(principalOf(ctx), manifest);
      return { job_id: job.id, state: stateA(job.state), createdAt: job.createdAt };
    },
  });
  mount({
    path: '/retrieve',
    action: 'job.read',
    fast: true,
    summary: 'Fetch one job',
    body: JobRef,
    response: JobA,
    handle: async (ctx, { job_id }) => {
      const job = await services.jobs.get(principalOf(ctx), job_id);
      const waitingReason = await services.agents.whyWaiting(job);
      return { ...jobA(job), ...(waitingReason && { waitingReason }) };
    },
  });
  mount({
    path: '/list',
    action: 'job.read',
    summary: 'List jobs, newest first, filtered by state, labels and creation time',
    body: ListJobsRequest,
    response: JobListResponse,
    handle: async (ctx, f) => {
      const states = f.state === undefined ? undefined : Array.isArray(f.state) ? f.state : [f.state];
      const page = await services.jobs.list(principalOf(ctx), { ...f, states });
      return { jobs: page.jobs.map(jobA), nextCursor: page.nextCursor };
    },
  });
  mount({
    path: '/cancel',
    action: 'job.cancel',
    summary:
      'Cancel a queued job (cancelled) or a running one (cancelling, then cancelled); 409 job.invalid_state when terminal',
    body: JobRef,
    response: JobA,
    handle: async (ctx, { job_id }) => {
      const { job, endedAs } = await services.jobs.cancel(principalOf(ctx), job_id);
      // Surface A's rule: a cancel of a job that already ended is a conflict (B answers the job as it is).
      if (endedAs) throw invalidState(`job is already ${endedAs}`);
      return jobA(job);
    },
  });
  mount({
    path: '/retry',
    action: 'job.retry',
    summary: 'Requeue a failed or timed-out job with attempt + 1; 409 job.invalid_state otherwise',
    body: JobRef,
    response: JobA,
    handle: async (ctx, { job_id }) => jobA(await services.jobs.retry(principalOf(ctx), job_id)),
  });
  return router;
}
