import { z } from 'zod';
import type { Services } from '../../services';
import { principalOf } from '../authenticate';
import { type AnyOperation, PageQuery, asPage, operation, pageSchema } from './operations';

const Figures = z.object({
  cpuSeconds: z.number(),
  gpuSeconds: z.number(),
  gbSeconds: z.number(),
  estimateUsd: z.number().meta({ description: 'At the plan’s prices; `self` is always 0' }),
});
const Usage = Figures.extend({
  windowStart: z.string(),
  windowEnd: z.string(),
  managed: Figures.meta({ description: 'Jobs run by the managed pool' }),
  self: Figures.meta({ description: 'Jobs run by the workspace’s own agents (never billed)' }),
}).meta({
  id: 'Usage',
  description:
    'Sums of the usage ledger’s entries recorded in [windowStart, windowEnd): each attempt’s runtime × resources (or the agent’s reported usage). Rounded to 6 decimals.',
});
const Cap = z.number().nullable();
const Limits = z
  .object({
    softCapUsd: Cap.meta({
      description:
        'Crossing it in a period is an audit entry (`billing.soft_cap_reached`), once per period; null: none',
    }),
    hardCapUsd: Cap.meta({
      description:
        'Managed jobs that would pass it are refused (402), and a lowered one stops the newest managed jobs; null: none',
    }),
    pending: z
      .object({ softCapUsd: Cap, hardCapUsd: Cap, requestedAt: z.string() })
      .nullable()
      .meta({ description: 'The caps in force after the next meter tick, when a change waits for it' }),
  })
  .meta({ id: 'Limits' });
const InvoiceLine = z
  .object({
    kind: z.enum(['usage', 'credit']).meta({
      description:
        "`usage`: one job's attempt; `credit`: the prepaid credit this invoice's usage drew, a negative amount with no job (the invoice's last line)",
    }),
    jobId: z.string().nullable().meta({ description: 'null on the credit line' }),
    attempt: z.number().int().nullable().meta({ description: 'null on the credit line' }),
    late: z.boolean().meta({ description: 'Usage of an earlier period recorded after that period’s invoice opened' }),
    cpuSeconds: z.number(),
    gpuSeconds: z.number(),
    gbSeconds: z.number(),
    amountUsd: z
      .number()
      .meta({ description: 'To the cent: the running total rounded, less the running total before this line rounded' }),
  })
  .meta({ id: 'InvoiceLine' });
const Invoice = z
  .object({
    id: z.string(),
    periodStart: z.string(),
    periodEnd: z.string(),
    status: z.enum(['draft', 'open', 'paid']).meta({
      description:
        '`draft` while late usage of the period may still land (about a meter tick), then `open`, never changed again; `paid` when Stripe says so',
    }),
    totalUsd: z.number().meta({
      description: 'The lines’ sum, exactly: the exact usage total less the credit it drew, rounded to the cent',
    }),
    creditUsd: z.number().meta({
      description:
        'The prepaid credit the usage drew (shown as the credit line); usage is charged once, from credit or here',
    }),
    roundingUsd: z.number().meta({ description: 'totalUsd − the exact total (to 12 decimals)' }),
    lines: z.array(InvoiceLine).meta({
      description:
        'One per job, attempt and lateness, in job and attempt order, then the credit line when credit was drawn',
    }),
  })
  .meta({
    id: 'Invoice',
    description: 'The managed usage of one billing period. A draft shows what it would hold if it opened now.',
  });
const CapInput = z.number().min(0).nullable().meta({ description: 'USD, at most 6 decimals; null removes the cap' });
const Instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

export function billingOperations(services: Services): AnyOperation[] {
  const { usage, limits, invoices } = services;
  const workspaceOf = (ctx: Parameters<typeof principalOf>[0]) => principalOf(ctx).workspaceId;
  return [
    operation({
      method: 'get',
      path: '/v0/billing/usage',
      tag: 'billing',
      summary:
        "The active workspace's usage in CPU-, GPU- and GB-seconds with a USD estimate, managed and self apart (default window: the current period)",
      action: 'billing.read',
      scope: 'active',
      authorizes: () => ({ type: 'billing', id: 'usage' }),
      query: z.strictObject({ windowStart: Instant.optional(), windowEnd: Instant.optional() }),
      response: Usage,
      handle: (ctx, { query }) => usage.read(workspaceOf(ctx), { start: query.windowStart, end: query.windowEnd }),
    }),
    operation({
      method: 'get',
      path: '/v0/billing/limits',
      tag: 'billing',
      summary: "The active workspace's soft and hard caps, and a change waiting for the next meter tick",
      action: 'billing.read',
      scope: 'active',
      authorizes: () => ({ type: 'billing', id: 'limits' }),
      response: Limits,
      handle: (ctx) => limits.get(workspaceOf(ctx)),
    }),
    operation({
      method: 'get',
      path: '/v0/billing/invoices',
      tag: 'billing',
      summary:
        "The active workspace's invoices, newest period first, each with its lines (plans with invoices: payg, team)",
      action: 'billing.read',
      scope: 'active',
      authorizes: () => ({ type: 'billing', id: 'invoices' }),
      query: z.strictObject(PageQuery),
      response: pageSchema(Invoice),
      problems: {
        403: 'auth.forbidden: the role or the kind of credential does not allow it (recorded in the audit log); billing.not_available: the workspace’s plan has no invoices (hobby, enterprise)',
      },
      handle: async (ctx, { query }) =>
        asPage(
          await invoices.list(workspaceOf(ctx), {
            limit: query.pageSize,
            cursor: query.pageToken,
            cursorParam: 'pageToken',
          }),
        ),
    }),
    operation({
      method: 'patch',
      path: '/v0/billing/limits',
      tag: 'billing',
      summary:
        'Change the caps (admin): 202 with `pending`; they take effect at the next meter tick (METER_TICK_SECONDS)',
      action: 'billing.limits_update',
      scope: 'active',
      authorizes: () => ({ type: 'billing', id: 'limits' }),
      body: z.strictObject({ softCapUsd: CapInput.optional(), hardCapUsd: CapInput.optional() }),
      status: 202,
      response: Limits,
      handle: (ctx, { body }) => {
        const p = principalOf(ctx);
        return limits.request(p.workspaceId, body, { actor: p.actor, origin: p.origin });
      },
    }),
  ];
}
