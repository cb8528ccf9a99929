import { z } from 'zod';
import type { Services } from '../../services';
import { EVENT_TYPES } from '../../jobs/outbox';
import { principalOf } from '../authenticate';
import { type AnyOperation, operation, PageQuery, asPage, pageSchema } from './operations';

const WebhookId = z.object({ id: z.string().max(64) });
const EventType = z.enum(EVENT_TYPES);
const Secret = z
  .string()
  .meta({ description: '`whsec_<base64>`: verify `webhook-signature` with it (Standard Webhooks). Shown only here' });

export const WebhookB = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(EventType),
    description: z.string().nullable(),
    enabled: z.boolean().meta({
      description: 'False once the receiver answered 410 (or the endpoint was deleted): nothing more is sent',
    }),
    disabledReason: z.string().nullable(),
    createdAt: z.string(),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .meta({ description: 'Until then, after a rotation, the previous secret signs too' }),
  })
  .meta({ id: 'Webhook' });

export const DeliveryB = z
  .object({
    id: z.string(),
    eventId: z
      .string()
      .meta({ description: 'The `webhook-id` header: the same on every attempt and redelivery of the event' }),
    eventType: EventType,
    jobId: z.string(),
    attempt: z
      .number()
      .int()
      .meta({ description: "This event's attempt number at this endpoint, redeliveries included" }),
    status: z.enum(['pending', 'succeeded', 'failed']).meta({
      description:
        '`pending`: failed, and will be retried at `nextAttemptAt`; `failed`: given up on (or a redelivery that failed)',
    }),
    redelivery: z.boolean(),
    responseStatus: z.number().int().nullable(),
    responseBody: z
      .string()
      .nullable()
      .meta({ description: 'The start of the receiver’s answer (WEBHOOK_RESPONSE_BODY_BYTES, 2 KiB by default)' }),
    error: z.string().nullable(),
    durationMs: z.number().int(),
    createdAt: z.string(),
    nextAttemptAt: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export function webhooksOperations(services: Services): AnyOperation[] {
  const { webhooks } = services;
  return [
    operation({
      method: 'post',
      path: '/v0/webhooks',
      tag: 'webhooks',
      summary:
        'Register an endpoint (admin). `events` defaults to all three kinds. The URL must be http(s) and may not resolve to a private, loopback, ' +
        'link-local, CGNAT, multicast or metadata address (400 `request.invalid`); the operator may allow private targets (on under `npm run dev`), ' +
        'metadata addresses never. Events are signed by the Standard Webhooks scheme with `secret`, shown only here',
      action: 'webhook.create',
      scope: 'active',
      authorizes: () => ({ type: 'webhook', id: 'new' }),
      body: z.strictObject({
        url: z.string().trim().url().max(2048),
        events: z.array(EventType).min(1).max(EVENT_TYPES.length).optional(),
        description: z.string().trim().max(500).optional(),
      }),
      status: 201,
      response: WebhookB.extend({ secret: Secret }),
      problems: {
        409: 'resource.conflict: the workspace has WEBHOOK_ENDPOINTS_MAX endpoints (default 20; `details.limit`)',
      },
      handle: (ctx, { body }) => webhooks.create(principalOf(ctx), body),
    }),
    operation({
      method: 'get',
      path: '/v0/webhooks',
      tag: 'webhooks',
      summary: "The active workspace's endpoints, newest first, without secrets (any member)",
      action: 'webhook.read',
      scope: 'active',
      authorizes: () => ({ type: 'workspace', id: 'webhooks' }),
      query: z.strictObject(PageQuery),
      response: pageSchema(WebhookB),
      handle: async (ctx, { query }) =>
        asPage(await webhooks.list(principalOf(ctx), { limit: query.pageSize, cursor: query.pageToken })),
    }),
    operation({
      method: 'get',
      path: '/v0/webhooks/{id}',
      tag: 'webhooks',
      summary: 'One endpoint, without its secret (any member)',
      action: 'webhook.read',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'webhook', id: params.id }),
      params: WebhookId,
      response: WebhookB,
      handle: (ctx, { params }) => webhooks.get(principalOf(ctx), params.id),
    }),
    operation({
      method: 'delete',
      path: '/v0/webhooks/{id}',
      tag: 'webhooks',
      summary:
        'Delete an endpoint (admin): nothing more is sent to it, retries in progress included. 204; 404 once deleted',
      action: 'webhook.delete',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'webhook', id: params.id }),
      params: WebhookId,
      status: 204,
      handle: async (ctx, { params }) => {
        await webhooks.remove(principalOf(ctx), params.id);
      },
    }),
    operation({
      method: 'post',
      path: '/v0/webhooks/{id}:rotate-secret',
      tag: 'webhooks',
      summary:
        'A new secret (admin). Until `previousSecretExpiresAt` (24 h) each event carries two `v1,` signatures, by the new secret and the previous one, ' +
        'so receivers can switch at their pace; a second rotation drops the oldest',
      action: 'webhook.rotate_secret',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'webhook', id: params.id }),
      params: WebhookId,
      response: z.object({ id: z.string(), secret: Secret, previousSecretExpiresAt: z.string() }),
      handle: (ctx, { params }) => webhooks.rotateSecret(principalOf(ctx), params.id),
    }),
    operation({
      method: 'get',
      path: '/v0/webhooks/{id}/deliveries',
      tag: 'webhooks',
      summary:
        'Every attempt to send an event to this endpoint, newest first (any member); `eventId` and `status` filter',
      action: 'webhook.read',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'webhook', id: params.id }),
      params: WebhookId,
      query: z.strictObject({
        ...PageQuery,
        eventId: z.string().max(64).optional(),
        status: z.enum(['pending', 'succeeded', 'failed']).optional(),
      }),
      response: pageSchema(DeliveryB),
      handle: async (ctx, { params, query }) =>
        asPage(
          await webhooks.deliveries(principalOf(ctx), params.id, {
            limit: query.pageSize,
            cursor: query.pageToken,
            eventId: query.eventId,
            status: query.status,
          }),
        ),
    }),
    operation({
      method: 'post',
      path: '/v0/webhooks/{id}/deliveries/{deliveryId}:redeliver',
      tag: 'webhooks',
      summary:
        'Send that delivery’s event again now (admin), with the same `webhook-id`, freshly signed: one attempt, logged as a new delivery ' +
        '(`redelivery: true`), not retried. 202; 409 `resource.conflict` when the endpoint is disabled',
      action: 'webhook.redeliver',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'webhook', id: params.id }),
      params: z.object({ id: z.string().max(64), deliveryId: z.string().max(64) }),
      status: 202,
      problems: { 409: 'The endpoint is disabled (`details.reason: webhook_disabled`)' },
      response: z.object({ webhookId: z.string(), eventId: z.string(), redeliveryOf: z.string() }),
      handle: (ctx, { params }) => webhooks.redeliver(principalOf(ctx), params.id, params.deliveryId),
    }),
  ];
}
