import type Router from '@koa/router';
import { z } from 'zod';
import type { Services } from '../../services';
import { principalOf } from '../authenticate';
import { type SurfaceAMount, operationGroup } from './operations';

const Quotas = z
  .strictObject({
    maxJobsPerHour: z.number().int().min(1).max(1_000_000).optional(),
    maxConcurrentJobs: z.number().int().min(1).max(100_000).optional(),
    allowedJobTypes: z.array(z.string().min(1).max(64)).min(1).max(32).optional(),
  })
  .meta({
    description:
      'Bound the jobs submitted with the key and the jobs handed to nodes registered with it, all of those nodes together. ' +
      'Past maxJobsPerHour or maxConcurrentJobs a submit is 429 quota.exceeded with Retry-After; a type not allowed is 403 auth.forbidden.',
  });
const ApiKey = z.object({
  id: z.string(),
  prefix: z.string(),
  name: z.string(),
  kind: z.enum(['user', 'agent', 'node']),
  quotas: Quotas.nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

export function keysRoutes(services: Services, at: SurfaceAMount): Router {
  const { router, mount } = operationGroup(at, 'api-keys');

  mount({
    path: '/create',
    action: 'key.create',
    auth: 'jwt',
    summary: 'Mint a user or agent key with optional quotas; `key` is shown this once (a live JWT is required)',
    body: z.strictObject({
      name: z.string().trim().min(1).max(100),
      kind: z.enum(['user', 'agent']).default('user'),
      quotas: Quotas.optional(),
    }),
    response: ApiKey.extend({ key: z.string() }),
    handle: (ctx, body) => services.keys.create(principalOf(ctx), body),
  });
  mount({
    path: '/list',
    action: 'key.read',
    summary: "The logged-in user's user and agent keys, newest first; never the secret",
    body: z.strictObject({
      limit: z.number().int().min(1).max(200).default(50),
      cursor: z.string().max(200).optional(),
    }),
    response: z.object({ keys: z.array(ApiKey), nextCursor: z.string().nullable() }),
    handle: (ctx, page) => services.keys.list(principalOf(ctx), page),
  });
  mount({
    path: '/revoke',
    action: 'key.revoke',
    summary: 'Revoke a key by id (idempotent); every API instance refuses it with 401 from the next request',
    body: z.strictObject({ id: z.string().max(64) }),
    response: ApiKey,
    handle: (ctx, { id }) => services.keys.revoke(principalOf(ctx), id),
  });
  return router;
}
