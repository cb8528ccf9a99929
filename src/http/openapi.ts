import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { refuseNodeKey } from './authenticate';
import { parse } from './validate';

/** Surface A's error envelope, as documented. */
export const ErrorEnvelope = z
  .object({
    status: z.literal('ERROR'),
    code: z.string().meta({ examples: ['request.invalid', 'resource.not_found', 'job.invalid_state'] }),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ErrorEnvelope' });

export interface PostOperation<B extends z.ZodType, R extends z.ZodType> {
  path: string;
  summary: string;
  tag: string;
  /** Credentials accepted (documentation; enforcement is the router's and the service's). Default: key or JWT. */
  auth?: 'none' | 'jwt' | 'any';
  /** A node key may call it (its own node's protocol operations); every other operation refuses node keys with 403. */
  nodeKey?: boolean;
  body: B;
  response: R;
  handle: (ctx: Context, body: z.output<B>) => Promise<z.input<R>>;
}

/**
 * Mounts a Surface A operation and documents it from the same zod schemas that validate it,
 * so the OpenAPI document cannot drift from what the server accepts.
 */
export function postOperation<B extends z.ZodType, R extends z.ZodType>(
  router: Router,
  registry: OpenAPIRegistry,
  prefix: string,
  op: PostOperation<B, R>,
) {
  registry.registerPath({
    method: 'post',
    path: prefix + op.path,
    summary: op.summary,
    tags: [op.tag],
    security: op.auth === 'none' ? [] : op.auth === 'jwt' ? [{ Bearer: [] }] : [{ ApiKey: [] }, { Bearer: [] }],
    description: op.nodeKey ? 'Node keys may call this for their own node.' : op.auth === 'none' ? undefined : 'Node keys get 403 auth.forbidden.',
    request: { body: { content: { 'application/json': { schema: op.body } } } },
    responses: {
      200: { description: 'OK', content: { 'application/json': { schema: z.object({ status: z.literal('OK'), payload: op.response }) } } },
      429: {
        description:
          'rate_limit.exceeded (per user, or per workspace for keys without a user: RATE_LIMIT_PER_MINUTE and RATE_LIMIT_PER_HOUR, shared by all API instances; ' +
          'per client address past AUTH_FAILURES_PER_MINUTE refused credentials) or ' +
          'quota.exceeded (an API key quota). Every answer carries RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset.',
        headers: {
          'Retry-After': { description: 'Whole seconds until a retry can succeed', schema: { type: 'integer' } },
          'RateLimit-Remaining': { description: 'Requests left in the tighter window', schema: { type: 'integer' } },
          'RateLimit-Reset': { description: 'Seconds until that window starts over', schema: { type: 'integer' } },
        },
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
      408: {
        description:
          'request.invalid: the request (headers and body) did not arrive within HTTP_REQUEST_TIMEOUT_MS (headers within HTTP_HEADERS_TIMEOUT_MS); the connection is closed',
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
      503: {
        description:
          'dependency.unavailable: Temporal or PostgreSQL cannot be reached, or (submit, cancel, retry) this API instance had no turn ' +
          'for the change within 10 s (CHANGES_IN_FLIGHT_MAX); nothing was written. ' +
          'The first call to an unreachable Temporal waits up to 10 s; later ones fail at once until Retry-After passes.',
        headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } },
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
      default: { description: 'Error', content: { 'application/json': { schema: ErrorEnvelope } } },
    },
  });
  router.post(op.path, async (ctx) => {
    if (!op.nodeKey) refuseNodeKey(ctx);
    ctx.body = await op.handle(ctx, parse(op.body, ctx.request.body));
  });
}

/**
 * A router for one group of Surface A operations (`/api/compute/<group>/…`) and the `mount`
 * that registers each operation on it and in the OpenAPI document under the group's tag.
 */
export function operationGroup(registry: OpenAPIRegistry, group: string) {
  const router = new Router({ prefix: `/compute/${group}` });
  const mount = <B extends z.ZodType, R extends z.ZodType>(op: Omit<PostOperation<B, R>, 'tag'>) =>
    postOperation(router, registry, `/api/compute/${group}`, { ...op, tag: group });
  return { router, mount };
}

export function newRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', { type: 'apiKey', in: 'header', name: 'X-API-Key', description: '`<prefix>_<secret>`: user, agent or node key' });
  registry.registerComponent('securitySchemes', 'Bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Session token from /api/auth/verify-otp (HS256, short-lived)' });
  return registry;
}

export function buildDocument(registry: OpenAPIRegistry) {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Compute job service',
      version: '0.1.0',
      description:
        'Surface A (/api): successful responses are {status: "OK", payload}; failures are {status: "ERROR", code, message, details?}. ' +
        'Surface B (/v0): Authorization: Bearer (a session JWT or a cpat_ access token) only; X-Compute-API-Version: v0 or absent; ' +
        'failures are RFC 9457 application/problem+json {type, title, status, detail, code, errors?}; lists are {items, nextPageToken}. ' +
        'Request bodies are JSON of at most 1 MiB; unknown fields are 400 request.invalid. IDs of another workspace are 404.',
    },
  });
}
