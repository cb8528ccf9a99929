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
  pool: z.string(),
  retry: z.object({ maxAttempts: z.number().int(), backoffSeconds: z.number().int() }),
  attempt: z.number().int(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  runtimeMs: z.number().int().nullable(),
  failureReason: z.enum(['exit_code', 'agent_error', 'agent_lost', 'timeout']).nullable(),
  error: z.string().nullable(),
  artifacts: z.array(z.object({ id: z.string(), name: z.string(), size: z.number(), sha256: z.string(), createdAt: z.string() })),
});

export function jobFields(job: Job): z.input<typeof JobFields> {
  return publicFieldsOf(job);
}
