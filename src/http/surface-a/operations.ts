import { WorkspaceHeader } from '../act-in-workspace';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import type { Principal } from '../../auth/principal';
import type { Action } from '../../auth/roles';
import type { AuthService } from '../../auth/service';
import { newRouter } from '../router';
import { refuseManagedKey, refuseNodeKey } from './identity';
import type { RouteInfo } from '../route-table';
import { parse } from '../validate';

// A Surface A operation is declared once: the POST route, its validation, its role rule and its
// OpenAPI entry come from the same declaration, and its RouteInfo joins the route table.

/** Surface A's error envelope, as documented. */
export const ErrorEnvelope = z
  .object({
    status: z.literal('ERROR'),
    code: z.string().meta({ examples: ['request.invalid', 'resource.not_found', 'job.invalid_state'] }),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    requestId: z
      .string()
      .optional()
      .meta({ description: 'The X-Request-Id of this request, as the service logged it' }),
  })
  .meta({ id: 'ErrorEnvelope' });

/** OpenAPI responses of Surface A's error envelope, one per status with what it means there. */
export function errorResponses(statuses: Record<number, string>) {
  return Object.fromEntries(
    Object.entries(statuses).map(([status, description]) => [
      status,
      { description, content: { 'application/json': { schema: ErrorEnvelope } } },
    ]),
  );
}

export interface PostOperation<B extends z.ZodType, R extends z.ZodType> {
  path: string;
  summary: string;
  tag: string;
  /** The role rule (roles.ts) checked before the handler; `none` for the login routes. A node key is held to its own node instead. */
  action: Action | 'none';
  /** Credentials accepted (documentation; enforcement is the router's and the service's). Default: key or JWT. */
  auth?: 'none' | 'jwt' | 'any';
  /** A node key may call it (its own node's protocol operations); every other operation refuses node keys with 403. */
  nodeKey?: boolean;
  /** A managed-pool key may call it (registering a managed-pool agent); every other operation refuses such keys with 403. */
  managedKey?: boolean;
  body: B;
  response: R;
  /** Request headers to document beside the workspace header (their checks are the handler's). */
  headers?: z.ZodObject;
  /** Also served by the fast path (fast-path.ts): the agent protocol's calls and the hottest read. */
  fast?: boolean;
  /** Headers of the 200 answer, documented. */
  responseHeaders?: Record<string, { description: string; schema: { type: 'string' } }>;
  /** Resolves to the payload, or to undefined when the handler answers later itself (LateAnswer). */
  handle: (ctx: Context, body: z.output<B>) => Promise<z.input<R> | undefined>;
}

/** What Surface A's operations are mounted with. */
export interface SurfaceAMount {
  registry: OpenAPIRegistry;
  auth: AuthService;
  /** Every mounted operation is added here. */
  routes: RouteInfo[];
  /** The route functions of the operations the fast path serves, by their whole path. */
  fast: Map<string, Middleware>;
}

/** The audit target of a Surface A request: the job, node or key its body names, else the workspace. */
function targetOf(p: Principal, body: unknown): { type: string; id: string } {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.job_id === 'string') return { type: 'job', id: b.job_id };
  if (typeof b.nodeId === 'string') return { type: 'agent', id: b.nodeId };
  if (typeof b.id === 'string') return { type: 'key', id: b.id };
  return { type: 'workspace', id: p.workspaceId };
}

/**
 * Mounts a Surface A operation and documents it from the same zod schemas that validate it,
 * so the OpenAPI document cannot drift from what the server accepts.
 */
export function postOperation<B extends z.ZodType, R extends z.ZodType>(
  router: Router,
  at: SurfaceAMount,
  prefix: string,
  op: PostOperation<B, R>,
) {
  at.routes.push({
    method: 'post',
    path: prefix + op.path,
    action: op.action,
    scope: op.auth === 'none' ? 'caller' : 'active',
    nodeKey: op.nodeKey,
    sessionOnly: op.auth === 'jwt',
  });
  at.registry.registerPath({
    method: 'post',
    path: prefix + op.path,
    summary: op.summary,
    tags: [op.tag],
    security: op.auth === 'none' ? [] : op.auth === 'jwt' ? [{ Bearer: [] }] : [{ ApiKey: [] }, { Bearer: [] }],
    description: [
      op.action === 'none'
        ? undefined
        : `Needs the role of action \`${op.action}\` (see the role table); user and agent keys act as members.`,
      op.nodeKey
        ? 'Node keys may call this for their own node.'
        : op.auth === 'none'
          ? undefined
          : 'Node keys get 403 auth.forbidden.',
      op.managedKey
        ? 'A managed-pool key may call this.'
        : op.auth === 'none'
          ? undefined
          : 'Managed-pool keys get 403 auth.forbidden.',
    ]
      .filter(Boolean)
      .join(' '),
    request: {
      ...(op.auth === 'none'
        ? op.headers && { headers: op.headers }
        : {
            headers: z.object({
              'X-Compute-Workspace': WorkspaceHeader.meta({
                description:
                  'With a session JWT: act in this workspace of the user’s, with the role held there (as on /v0; `compute workspaces use` sends it). ' +
                  'Without it a session acts in the personal workspace. Keys act in their own workspace only: another is 404.',
              }),
              ...op.headers?.shape,
            }),
          }),
      body: { content: { 'application/json': { schema: op.body } } },
    },
    responses: {
      200: {
        description: 'OK',
        headers: op.responseHeaders,
        content: { 'application/json': { schema: z.object({ status: z.literal('OK'), payload: op.response }) } },
      },
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
          'for the change within 10 s (CHANGES_IN_FLIGHT_MAX), or (nodes/logs) none for the push within 10 s (LOG_LINES_IN_FLIGHT_MAX); nothing was written. ' +
          'The first call to an unreachable Temporal waits up to 10 s; later ones fail at once until Retry-After passes.',
        headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } },
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
      default: { description: 'Error', content: { 'application/json': { schema: ErrorEnvelope } } },
    },
  });
  const route: Middleware = async (ctx) => {
    const p = ctx.state.principal as Principal | undefined;
    if (p?.kind === 'managed') {
      if (!op.managedKey) refuseManagedKey(ctx);
    } else if (!op.nodeKey) refuseNodeKey(ctx);
    const body = parse(op.body, ctx.request.body);
    // A node key has no role: the agent service holds it to its own node. Nor has a managed-pool
    // key, which reaches only the operations that name it (registering a managed-pool agent).
    if (p && p.kind !== 'node' && p.kind !== 'managed' && op.action !== 'none')
      await at.auth.authorize(p, op.action, targetOf(p, body));
    const out = await op.handle(ctx, body);
    // Unless the handler answers later itself (LateAnswer).
    if (ctx.respond !== false) ctx.body = out;
  };
  router.post(op.path, route);
  if (op.fast) at.fast.set(prefix + op.path, route);
}

/**
 * A router for one group of Surface A operations (`/api/compute/<group>/…`) and the `mount`
 * that registers each operation on it and in the OpenAPI document under the group's tag.
 */
export function operationGroup(at: SurfaceAMount, group: string) {
  const router = newRouter(`/compute/${group}`);
  const mount = <B extends z.ZodType, R extends z.ZodType>(op: Omit<PostOperation<B, R>, 'tag'>) =>
    postOperation(router, at, `/api/compute/${group}`, { ...op, tag: group });
  return { router, mount };
}
