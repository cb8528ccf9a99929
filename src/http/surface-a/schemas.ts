import { DateTime } from '../validate';
import { z } from 'zod';
import { JobFields } from '../job-fields';
import { JOB_STATES } from '../../../workflows/definitions';
import { LabelsSchema, RegionSchema } from '../../jobs/schemas';
import { storableText } from '../../shared/text';

/** PostgreSQL's integer: larger numbers in such fields are 400, not an overflow. */
const MAX_INT32 = 2 ** 31 - 1;

// Surface A's request and response shapes (CONTRACT §4). Requests are strict: unknown fields are
// 400 `request.invalid`. Responses are documented in the OpenAPI document.

const JobId = z
  .string()
  .min(1)
  .max(64)
  .meta({ examples: ['job_01jdq0d6v3c7b1y1w2k3m4n5p6'] });
const NodeId = z.string().min(1).max(64);
const LeaseId = z.string().min(1).max(64);

export const A_STATES = JOB_STATES.map((s) => s.toLowerCase().replace('_', '-')) as [string, ...string[]];
/** Accepts Surface A's spelling (`timed-out`) and the canonical one (`TIMED_OUT`). */
const StateFilter = z
  .string()
  .transform((s) => s.toUpperCase().replace('-', '_'))
  .pipe(z.enum(JOB_STATES));

export const JobRef = z.strictObject({ job_id: JobId });
export const ListJobsRequest = z.strictObject({
  state: z.union([StateFilter, z.array(StateFilter).max(7)]).optional(),
  labels: LabelsSchema.optional(),
  createdAfter: DateTime().optional(),
  createdBefore: DateTime().optional(),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});

export const RegisterRequest = z.strictObject({
  name: z.string().min(1).max(200),
  labels: LabelsSchema.default({}),
  capabilities: z.record(z.string(), z.unknown()).optional(),
  capacity: z
    .strictObject({
      cpu: z.number().positive().max(1024),
      memoryMb: z
        .number()
        .int()
        .positive()
        .max(16 * 1024 * 1024),
      gpu: z.number().int().min(0).max(64).default(0),
    })
    .optional()
    .meta({
      description:
        'What this agent has for its jobs. A poll is then handed only jobs whose resources fit what its running jobs leave free; without it, jobs whatever they ask for',
    }),
  version: z.string().max(100).optional(),
  region: RegionSchema.optional().meta({
    description:
      'Managed-pool agents only (registered with a managed-pool key): the region whose managed jobs it takes; default `local`. 400 with any other key',
  }),
});
export const HeartbeatRequest = z.strictObject({ nodeId: NodeId, runningJobs: z.array(JobId).max(1000).default([]) });
export const PollRequest = z.strictObject({
  nodeId: NodeId,
  maxJobs: z.number().int().min(1).max(100).default(1).meta({
    description:
      "At most this many jobs, the highest priority first, then the oldest; reserved together, up to the instance's free places among CLAIMS_IN_FLIGHT_MAX at a time (one at a time for a node with a capacity, key quotas or the managed pool)",
  }),
  waitSeconds: z.number().int().min(0).max(30).default(0),
});
export const LogsRequest = z.strictObject({
  nodeId: NodeId,
  job_id: JobId,
  leaseId: LeaseId,
  lines: z
    .array(
      z.strictObject({
        seq: z.number().int().min(0).max(MAX_INT32),
        stream: z.enum(['stdout', 'stderr']),
        line: z
          .string()
          .max(64 * 1024)
          .transform(storableText)
          .meta({ description: 'NUL and lone surrogates are stored as U+FFFD' }),
        ts: DateTime().optional(),
      }),
    )
    .max(5000),
});
export const ResultRequest = z.strictObject({
  nodeId: NodeId,
  job_id: JobId,
  leaseId: LeaseId,
  exitCode: z.number().int().min(-255).max(255),
  runtimeMs: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  error: z.string().max(4096).optional(),
  outOfMemory: z.boolean().optional().meta({
    description:
      'The job passed its resources.memoryMb and was killed for it: it ends with failureReason out_of_memory',
  }),
  usage: z.record(z.string(), z.number().min(0).max(1e12)).optional(),
});
export const DrainRequest = z.strictObject({
  nodeId: NodeId,
  enable: z.boolean().default(true),
  deadlineSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .optional(),
});
export const ListNodesRequest = z.strictObject({
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});
export const NodeRef = z.strictObject({ nodeId: NodeId });

export const JobA = JobFields.extend({
  job_id: z.string(),
  state: z.enum(A_STATES),
  nodeId: z.string().nullable(),
}).meta({ id: 'JobA' });
export const SubmitResponse = z.object({ job_id: z.string(), state: z.enum(A_STATES), createdAt: z.string() });
export const JobListResponse = z.object({ jobs: z.array(JobA), nextCursor: z.string().nullable() });
export const AssignedJob = z
  .object({
    job_id: z.string(),
    leaseId: z.string(),
    type: z.string(),
    command: z.string(),
    env: z.record(z.string(), z.string()),
    timeoutSeconds: z.number().int(),
    attempt: z.number().int(),
    labels: z.record(z.string(), z.string()),
    artifacts: z.object({ paths: z.array(z.string()) }),
    resources: z.object({ cpu: z.number(), memoryMb: z.number().int(), gpu: z.number().int() }).meta({
      description:
        'What the job pays for, defaults filled in: an agent that holds jobs to their resources gives it no more',
    }),
    artifactUploadUrl: z.string().meta({
      description: 'Signed PUT URL template for this job and lease; replace {id} with an artifact id, add &name=',
    }),
    traceparent: z.string().optional().meta({
      description:
        'The hand-out’s place in the job’s trace (W3C Trace Context), when the service traces: the agent runs the attempt as its child, gives the job’s process TRACEPARENT and sends its result with a `traceparent` header',
    }),
  })
  .meta({ id: 'AssignedJob' });
export const NodeA = z
  .object({
    nodeId: z.string(),
    name: z.string(),
    labels: z.record(z.string(), z.string()),
    state: z.enum(['ONLINE', 'DRAINING', 'DRAINED', 'OFFLINE']),
    drain: z.boolean(),
    drainDeadlineAt: z.string().nullable(),
    lastHeartbeatAt: z.string(),
    runningJobs: z.array(z.string()),
    version: z.string().nullable(),
    region: z
      .string()
      .nullable()
      .meta({ description: 'The managed-pool region a managed-pool node serves; null for a workspace’s own node' }),
    capacity: z.object({ cpu: z.number(), memoryMb: z.number().int(), gpu: z.number().int() }).nullable().meta({
      description:
        'What it registered it has for its jobs; null when it gave none (it is then handed jobs whatever they ask for)',
    }),
    createdAt: z.string(),
  })
  .meta({ id: 'NodeA' });
