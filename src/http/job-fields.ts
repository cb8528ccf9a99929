import { z } from 'zod';
import { type Job, publicFieldsOf } from '../jobs/record';

// The job record both surfaces render (CONTRACT §3): the same fields, but for the three each
// surface names its own way (A: job_id, lower-case state, nodeId; B: id, state as written, agentId).

export const JobFields = z.object({
  type: z.string(),
  command: z.string(),
  labels: z.record(z.string(), z.string()),
  selector: z.record(z.string(), z.string()),
  timeoutSeconds: z.number().int(),
  priority: z.number().int(),
  pool: z
    .enum(['self', 'managed'])
    .meta({ description: '`self`: the workspace’s own agents; `managed`: the operator’s managed pool, in `region`' }),
  region: z.string().nullable().meta({
    description:
      'The managed pool’s region that runs the job (the manifest’s, else the workspace’s `defaultRegion` at submit); null for a `self` job',
  }),
  retry: z.object({ maxAttempts: z.number().int(), backoffSeconds: z.number().int() }),
  attempt: z.number().int(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  runtimeMs: z.number().int().nullable(),
  failureReason: z
    .union([
      z.enum([
        'exit_code',
        'agent_error',
        'agent_lost',
        'timeout',
        'out_of_memory',
        'billing.hard_cap',
        'cancelled in Temporal',
      ]),
      z.string().regex(/^terminated in Temporal: /),
    ])
    .nullable()
    .meta({
      description:
        'Why the job failed, or why the service cancelled it: `out_of_memory` when it passed its `resources.memoryMb` on an agent that holds jobs to it (the managed pool), `billing.hard_cap` when a lowered hard cap stopped it, `cancelled in Temporal` when its run was asked to cancel there (the Temporal UI, `temporal workflow cancel`, a batch), `terminated in Temporal: <reason>` when its run was terminated',
    }),
  error: z.string().nullable(),
  waitingReason: z.string().optional().meta({
    description:
      'Only on one job’s read (`jobs/retrieve`, `GET /v0/jobs/{id}`) of a queued managed job that no agent could take: why (none of its region online with the labels its selector asks for, or none with the room its `resources` ask for, and the most any offers). Absent otherwise',
  }),
  artifacts: z.array(
    z.object({ id: z.string(), name: z.string(), size: z.number(), sha256: z.string(), createdAt: z.string() }),
  ),
  traceId: z.string().nullable().meta({
    description:
      'The job’s trace ID (W3C Trace Context, 32 hex digits) when the service traces (OTEL_EXPORTER_OTLP_ENDPOINT): its submit, each attempt’s hand-out and run, its results and its webhook deliveries are spans of this trace. Null otherwise',
  }),
  env: z.record(z.string(), z.string()).meta({
    description:
      'The names of the manifest’s env, each value `[redacted]`: the values are kept sealed and go only to the agent that runs an attempt',
  }),
});

export function jobFields(job: Job): z.input<typeof JobFields> {
  return publicFieldsOf(job);
}
