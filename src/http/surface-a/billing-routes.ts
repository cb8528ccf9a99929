import type Router from '@koa/router';
import { z } from 'zod';
import { PLAN_IDS, planRecord } from '../../billing/plans';
import { SUBSCRIPTION_STATUSES, subscriptionRecord } from '../../billing/subscription';
import type { Services } from '../../services';
import { principalOf } from '../authenticate';
import { type SurfaceAMount, operationGroup } from './operations';

// Surface A's billing (CONTRACT §9): the plans and the subscription of the business the caller
// acts for, which is the workspace as on every other /api route.

const Usd = z.number().min(0);
const HttpUrl = z
  .string()
  .max(2048)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'an http(s) URL');
const PlanA = z
  .object({
    id: z.enum(PLAN_IDS),
    name: z.string(),
    prices: z.object({ cpuSecondUsd: Usd, gpuSecondUsd: Usd, gbSecondUsd: Usd }).meta({
      description:
        'USD per second of one CPU core, one GPU and one GB of memory (exact decimals, at most 15 significant digits)',
    }),
    requestsPerSecond: z.number().int().nullable().meta({
      description: "/v0 requests per second, sustained; null: none (hobby) or the workspace's own setting (enterprise)",
    }),
    burst: z
      .number()
      .int()
      .nullable()
      .meta({ description: '/v0 requests in any one second; null as requestsPerSecond' }),
    invoices: z.boolean(),
  })
  .meta({ id: 'Plan' });
const SubscriptionA = z
  .object({
    plan: PlanA.shape.id,
    status: z.enum(SUBSCRIPTION_STATUSES),
    currentPeriodStart: z.string(),
    currentPeriodEnd: z.string(),
    creditUsd: Usd.meta({ description: 'Prepaid credit in USD (at most 6 decimals)' }),
  })
  .meta({ id: 'Subscription' });

export function billingRoutes(services: Services, at: SurfaceAMount): Router {
  const { router, mount } = operationGroup(at, 'billing');

  mount({
    path: '/plans/list',
    action: 'billing.read',
    summary: 'Every plan with its prices per CPU-, GPU- and GB-second and its /v0 request budget',
    body: z.strictObject({}),
    response: z.object({ plans: z.array(PlanA) }),
    handle: async () => ({ plans: (await services.plans.list()).map(planRecord) }),
  });
  mount({
    path: '/subscription',
    action: 'billing.read',
    summary: "The workspace's plan, subscription status, current billing period and prepaid credit",
    body: z.strictObject({}),
    response: SubscriptionA,
    handle: async (ctx) => subscriptionRecord(await services.subscriptions.get(principalOf(ctx).workspaceId)),
  });
  mount({
    path: '/checkout/create',
    action: 'billing.checkout',
    summary:
      "Open a Stripe Checkout Session for a plan (admin): answers its URL; the subscription is `pending` until Stripe's signed event " +
      'says the checkout completed, then the plan changes. 400 names `plan` when the plan has no checkout; 403 billing.not_available when payments are not configured',
    body: z.strictObject({
      plan: z.string().min(1).max(64),
      successUrl: HttpUrl.meta({ description: 'Where Stripe sends the customer after paying' }),
      cancelUrl: HttpUrl.meta({ description: 'Where Stripe sends the customer who gives up' }),
    }),
    response: z.object({ checkoutUrl: z.string(), sessionId: z.string() }).meta({ id: 'CheckoutSession' }),
    handle: (ctx, body) => {
      const p = principalOf(ctx);
      return services.checkout.create({ workspaceId: p.workspaceId, actor: p.actor, origin: p.origin, ...body });
    },
  });
  return router;
}
