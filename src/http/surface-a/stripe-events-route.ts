import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { IncomingMessage } from 'node:http';
import type Router from '@koa/router';
import { z } from 'zod';
import type { StripeEvents } from '../../billing/stripe-events';
import { AppError } from '../../shared/errors';
import { newRouter } from '../router';
import { errorResponses } from './operations';

// Stripe's events (CONTRACT §9). The signature is the credential, over the exact bytes Stripe
// sent: the route reads the raw body itself, before any JSON parser, and bounds it.

export const STRIPE_EVENTS_PATH = '/api/compute/billing/stripe-events';

async function rawBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw new AppError('request.too_large', `The body is over ${maxBytes} bytes`, { maxBytes });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new AppError('request.too_large', `The body is over ${maxBytes} bytes`, { maxBytes });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const Received = z.object({
  received: z.literal(true),
  outcome: z.enum(['applied', 'stale', 'ignored', 'duplicate']).meta({
    description:
      'applied; stale (a newer state of the subscription was applied already); ignored (a type or object we do not act on); duplicate (this event id was applied before)',
  }),
});

export function stripeEventsRoute(
  deps: { stripeEvents: StripeEvents; maxBytes: number },
  registry: OpenAPIRegistry,
): Router {
  const router = newRouter();
  router.post(STRIPE_EVENTS_PATH, async (ctx) => {
    const raw = await rawBody(ctx.req, deps.maxBytes);
    const event = deps.stripeEvents.verify(raw, ctx.get('Stripe-Signature') || undefined);
    ctx.body = { received: true, outcome: await deps.stripeEvents.apply(event) };
  });
  registry.registerPath({
    method: 'post',
    path: STRIPE_EVENTS_PATH,
    summary:
      "Stripe's signed events: the body checked against STRIPE_WEBHOOK_SECRET (Stripe-Signature, 300 s tolerance), each event applied once " +
      '(its id kept with its effect). checkout.session.completed|expired, customer.subscription.created|updated|deleted set plan and status, ' +
      "ordered by the event's own time; invoice.paid marks our invoice paid; invoice.payment_failed sets past_due. Called by Stripe only",
    tags: ['billing'],
    request: {
      headers: z.object({
        'Stripe-Signature': z.string().meta({ description: 't=<unix seconds>,v1=<HMAC-SHA256 hex>' }),
      }),
      body: {
        content: {
          'application/json': {
            schema: z.object({ id: z.string(), type: z.string(), created: z.number().int() }).passthrough(),
          },
        },
      },
    },
    responses: {
      200: {
        description: 'Received',
        content: { 'application/json': { schema: z.object({ status: z.literal('OK'), payload: Received }) } },
      },
      ...errorResponses({
        403: 'auth.signature_invalid: no signature, a forged or stale one, or another secret; billing.not_available: no STRIPE_WEBHOOK_SECRET here',
        413: 'request.too_large',
        503: 'dependency.unavailable (Stripe resends)',
      }),
    },
  });
  return router;
}
