import { z } from 'zod';
import { ManifestSchema } from '../../jobs/schemas';
import { JobFields } from '../job-fields';
import type { Job } from '../../jobs/record';
import { isTerminal, JOB_STATES } from '../../../workflows/definitions';
import type { Services } from '../../services';
import { principalOf } from '../authenticate';
import type { logFollower } from '../log-follower';
import { SseLogEvent } from '../log-stream';
import { type AnyOperation, operation, PageQuery, asPage, pageSchema, repeated } from './operations';
import { attemptB, jobB, logLineB } from './render';

const SubmittedB = z
  .object({ id: z.string(), state: z.enum(JOB_STATES), createdAt: z.string() })
  .meta({ id: 'SubmittedJob' });
const JobId = z.object({ id: z.string().max(64) });
export const JobB = JobFields.extend({
  id: z.string(),
  state: z.enum(JOB_STATES),
  agentId: z.string().nullable(),
}).meta({ id: 'Job' });

/** `label=key=value`: the first `=` splits key from value (a value may hold `=`). */
const LabelFilter = z.string().regex(/^[^=]+=.*$/, 'expected key=value');
const ListQuery = z.strictObject({
  state: repeated(z.enum(JOB_STATES)).meta({ description: 'Repeatable: any of these states' }),
  label: repeated(LabelFilter).meta({ description: 'Repeatable `key=value`: all must match' }),
  createdAfter: z.iso.datetime({ offset: true }).optional(),
  createdBefore: z.iso.datetime({ offset: true }).optional(),
  ...PageQuery,
});

const AttemptB = z
  .object({
    attempt: z.number().int().meta({ description: 'Its number, 1 for the first; the job’s `attempt` is its latest' }),
    agentId: z.string().meta({ description: 'The agent it was assigned to' }),
    assignedAt: z.string(),
    lastHeartbeatAt: z
      .string()
      .meta({ description: 'The last heartbeat of its agent while it ran (its assignment, until one came)' }),
    endedAt: z.string().nullable().meta({ description: 'null while it runs' }),
    endReason: z.string().nullable().meta({
      description:
        '`result` (its agent reported), `timeout`, `cancelled`, `agent_lost`, `drain_deadline`, `deregistered` (its agent was removed), `undelivered` (the assignment never reached the agent), `reset` (its run was reset in Temporal; the job went on in a new attempt); null while it runs',
    }),
    exitCode: z.number().int().nullable().meta({ description: 'As its agent reported it; null without a result' }),
    runtimeMs: z.number().int().nullable().meta({ description: 'As its agent reported it; null without a result' }),
  })
  .meta({ id: 'Attempt' });

const LogLine = z.object({
  seq: z.number().int(),
  stream: z.enum(['stdout', 'stderr', 'system']),
  line: z.string(),
  ts: z.string(),
  truncated: z.object({ droppedLines: z.number().int(), droppedBytes: z.number().int() }).optional(),
});
const LogsQuery = z.strictObject({
  afterSeq: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
  follow: z.enum(['true', 'false']).default('false'),
});

export function jobsOperations(services: Services, followLogs: ReturnType<typeof logFollower>): AnyOperation[] {
  const { jobs, logs } = services;
  return [
    operation({
      method: 'post',
      path: '/v0/jobs',
      tag: 'jobs',
      summary: 'Submit a job (the manifest of CONTRACT §3, the same file `compute run` takes) in the active workspace',
      action: 'job.submit',
      scope: 'active',
      authorizes: () => ({ type: 'job', id: 'new' }),
      body: ManifestSchema,
      headers: z.object({
        'Idempotency-Key': z
          .string()
          .min(1)
          .max(255)
          .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
          .optional()
          .meta({
            description:
              'Makes the submit safe to retry: for 24 h the first answer (status and body) is replayed with `Idempotent-Replayed: true`; ' +
              'another body with the same key is 422 `idempotency.mismatch`; while the first request is in progress another is 409 `resource.conflict` ' +
              '(for at most 30 s after a crash of the instance carrying it; then a retry finishes that same job). Keys are per workspace. ' +
              'Only a created job is kept: a request that failed without one leaves the key free.',
          }),
      }),
      status: 201,
      response: SubmittedB,
      problems: {
        402: 'resource.limit_reached: a managed job on a billed plan whose worst case the credit does not cover (`details`: spentUsd, reservedUsd, requiredUsd, creditUsd), or of a workspace whose subscription is past_due or canceled (`details`: plan, status); `self` jobs are never refused for credit',
        403: 'auth.forbidden: the role or the kind of credential does not allow it; billing.not_available: a managed job of a workspace on hobby, which has no managed pool (`details.plan`)',
        409: 'resource.conflict: a request with this Idempotency-Key is still in progress (`details.reason: idempotency_key_in_use`)',
        422: 'idempotency.mismatch: this Idempotency-Key was used with another body in the last 24 h',
      },
      handle: async (ctx, { body, headers }) => {
        const submitted = (job: Job) => ({ id: job.id, state: job.state, createdAt: job.createdAt });
        const key = headers['Idempotency-Key'];
        if (!key) return submitted(await jobs.submit(principalOf(ctx), body));
        const { body: answer, replayed } = await jobs.submitWithKey(principalOf(ctx), body, key, submitted);
        if (replayed) ctx.set('Idempotent-Replayed', 'true');
        return answer;
      },
    }),
    operation({
      method: 'get',
      path: '/v0/jobs',
      tag: 'jobs',
      summary:
        "The active workspace's jobs, newest first; `state` and `label` repeat; a job submitted meanwhile never shifts a page",
      action: 'job.read',
      scope: 'active',
      authorizes: () => ({ type: 'workspace', id: 'jobs' }),
      query: ListQuery,
      response: pageSchema(JobB),
      handle: async (ctx, { query }) => {
        const labels =
          query.label &&
          Object.fromEntries(query.label.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
        const page = await jobs.list(principalOf(ctx), {
          states: query.state,
          labels,
          createdAfter: query.createdAfter,
          createdBefore: query.createdBefore,
          limit: query.pageSize,
          cursor: query.pageToken,
          cursorParam: 'pageToken',
        });
        return asPage({ items: page.jobs.map(jobB), nextCursor: page.nextCursor });
      },
    }),
    operation({
      method: 'get',
      path: '/v0/jobs/{id}',
      tag: 'jobs',
      summary: 'One job',
      action: 'job.read',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'job', id: params.id }),
      params: JobId,
      response: JobB,
      handle: async (ctx, { params }) => {
        const job = await jobs.get(principalOf(ctx), params.id);
        const waitingReason = await services.agents.whyWaiting(job);
        return { ...jobB(job), ...(waitingReason && { waitingReason }) };
      },
    }),
    operation({
      method: 'get',
      path: '/v0/jobs/{id}/attempts',
      tag: 'jobs',
      summary:
        "The job's attempts, oldest first (at most 100): the agent each ran on, when it was assigned, last heard of and ended, " +
        'why it ended, and the exit code and runtime its agent reported',
      action: 'job.read',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'job', id: params.id }),
      params: JobId,
      response: z.object({ items: z.array(AttemptB) }),
      handle: async (ctx, { params }) => ({ items: (await jobs.attempts(principalOf(ctx), params.id)).map(attemptB) }),
    }),
    operation({
      method: 'post',
      path: '/v0/jobs/{id}:cancel',
      tag: 'jobs',
      summary:
        'Cancel (idempotent): always 200 with the job as it now is. Queued: CANCELLED; running: CANCELLING, then CANCELLED; ended: as it was',
      action: 'job.cancel',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'job', id: params.id }),
      params: JobId,
      response: JobB,
      handle: async (ctx, { params }) => jobB((await jobs.cancel(principalOf(ctx), params.id)).job),
    }),
    operation({
      method: 'get',
      path: '/v0/jobs/{id}/logs',
      tag: 'jobs',
      summary:
        "A page of the job's log after `afterSeq`: `nextSeq` is the next call's `afterSeq`, `complete` is true when the job is over and this page holds its last line. " +
        '`follow=true`: the SSE stream of CONTRACT §7 instead (resume with Last-Event-ID)',
      action: 'job.read',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'job', id: params.id }),
      params: JobId,
      query: LogsQuery,
      response: z.object({ lines: z.array(LogLine), nextSeq: z.number().int(), complete: z.boolean() }),
      alternative: {
        type: 'text/event-stream',
        description: 'with follow=true: `event: log`, `event: log.truncated`, then `event: end`',
        schema: SseLogEvent,
      },
      handle: async (ctx, { params, query }) => {
        const principal = principalOf(ctx);
        await jobs.get(principal, params.id);
        if (query.follow === 'true') return followLogs(ctx, principal, params.id, true);
        const page = await logs.read(params.id, query.afterSeq, { maxRows: query.limit });
        const lines = page.events.map(logLineB);
        const complete = Boolean(page.job && isTerminal(page.job.state) && !page.full);
        return { lines, nextSeq: lines.at(-1)?.seq ?? query.afterSeq, complete };
      },
    }),
  ];
}
