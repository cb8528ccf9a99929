import { z } from 'zod';
import { JOB_STATES } from '../../workflows/definitions';
import type { PageRequest } from '../shared/cursor';

// Request shapes, shared by validation and the OpenAPI document (CONTRACT §3).

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');

export const LabelsSchema = z
  .record(
    z.string().regex(/^[a-z0-9][a-z0-9._/-]{0,62}$/, 'label keys match [a-z0-9][a-z0-9._/-]{0,62}'),
    z.string().max(256),
  )
  .refine((o) => Object.keys(o).length <= 64, 'at most 64 labels')
  .meta({ id: 'Labels', description: 'Up to 64 key/value pairs.' });

/** A region of the managed pool: a manifest's, a managed-pool agent's (CONTRACT §3, §9). */
export const RegionSchema = z.string().regex(/^[a-z0-9-]{1,32}$/, 'lower-case letters, digits and -, at most 32');

export const ManifestSchema = z
  .strictObject({
    type: z
      .string()
      .min(1)
      .meta({ description: 'Job type; only COMMAND is supported.', examples: ['COMMAND'] }),
    command: z
      .string()
      .min(1)
      .refine((s) => utf8Bytes(s) <= 64 * 1024, 'command is at most 64 KiB')
      .meta({ description: 'Shell command, run with sh -c.' }),
    timeoutSeconds: z.number().int().min(1).max(86_400).default(3600),
    labels: LabelsSchema.default({}),
    env: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,255}$/), z.string().max(32 * 1024))
      .refine((o) => Object.keys(o).length <= 256, 'at most 256 variables')
      .default({}),
    selector: LabelsSchema.default({}).meta({ description: 'Agent labels that must all match.' }),
    resources: z
      .strictObject({
        cpu: z.number().positive().max(1024).optional(),
        memoryMb: z
          .number()
          .int()
          .positive()
          .max(16 * 1024 * 1024)
          .optional(),
        gpu: z.number().int().min(0).max(64).optional(),
      })
      .optional(),
    pool: z
      .enum(['self', 'managed'])
      .default('self')
      .meta({
        description:
          '`self` (default): the workspace’s own agents run it. `managed`: the operator’s managed pool does, on an agent of `region`; ' +
          'the managed agents of a region take the jobs of every workspace in turn (the workspace served least recently first), ' +
          'then by priority and age within it; they never take `self` jobs, and the workspace’s own agents never take managed ones.',
      }),
    region: RegionSchema.optional().meta({
      description:
        'Managed jobs only: the region whose managed-pool agents may run it; default the workspace’s `defaultRegion`. With pool `self` it is 400 request.invalid.',
      examples: ['local', 'eu-west-1'],
    }),
    retry: z
      .strictObject({
        maxAttempts: z.number().int().min(1).max(10).default(1),
        backoffSeconds: z.number().int().min(0).max(3600).default(10),
      })
      .default({ maxAttempts: 1, backoffSeconds: 10 }),
    priority: z.number().int().min(1).max(5).default(3),
    artifacts: z.strictObject({ paths: z.array(z.string().min(1).max(1024)).max(100) }).optional(),
  })
  .superRefine((m, ctx) => {
    if (m.region !== undefined && m.pool !== 'managed')
      ctx.addIssue({ code: 'custom', path: ['region'], message: 'a region is for managed jobs (pool "managed") only' });
  })
  .meta({ id: 'JobManifest' });
export type Manifest = z.output<typeof ManifestSchema>;

export const JobStateSchema = z.enum(JOB_STATES);

export interface JobListFilter extends PageRequest {
  states?: (typeof JOB_STATES)[number][];
  labels?: Record<string, string>;
  createdAfter?: string;
  createdBefore?: string;
}
