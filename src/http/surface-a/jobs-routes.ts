import type Router from '@koa/router';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Services } from '../../services';
import { ManifestSchema } from '../../jobs/schemas';
import { principalOf } from '../authenticate';
import { operationGroup } from '../openapi';
import { JobA, JobListResponse, JobRef, ListJobsRequest, SubmitResponse } from './schemas';
import { jobA, stateA } from './render';

export function jobsRoutes(services: Services, registry: OpenAPIRegistry): Router {
  const { router, mount } = operationGroup(registry, 'jobs');

  mount({
    path: '/submit',
    summary: 'Enqueue a new job (not idempotent: a resubmit is a new job)',
    body: ManifestSchema,
    response: SubmitResponse,
    handle: async (ctx, manifest) => {
      const job = await services.jobs.submit(principalOf(ctx), manifest);
      return { job_id: job.id, state: stateA(job.state), createdAt: job.createdAt };
    },
  });
  mount({
    path: '/retrieve',
    summary: 'Fetch one job',
    body: JobRef,
    response: JobA,
    handle: async (ctx, { job_id }) => jobA(await services.jobs.get(principalOf(ctx), job_id)),
  });
  mount({
    path: '/list',
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
    summary: 'Cancel a queued job (cancelled) or a running one (cancelling, then cancelled); 409 job.invalid_state when terminal',
    body: JobRef,
    response: JobA,
    handle: async (ctx, { job_id }) => jobA(await services.jobs.cancel(principalOf(ctx), job_id)),
  });
  mount({
    path: '/retry',
    summary: 'Requeue a failed or timed-out job with attempt + 1; 409 job.invalid_state otherwise',
    body: JobRef,
    response: JobA,
    handle: async (ctx, { job_id }) => jobA(await services.jobs.retry(principalOf(ctx), job_id)),
  });
  return router;
}
