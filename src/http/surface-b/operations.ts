import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { Action } from '../../auth/roles';
import type { AuthService } from '../../auth/service';
import { principalOf } from '../authenticate';
import { type RouteInfo, type Scope, routerPath } from '../route-table';
import { parse } from '../validate';
import { WorkspaceHeader } from '../act-in-workspace';
import { API_VERSION } from './problem';

// A /v0 operation is declared once: the route, its validation and its OpenAPI entry come from the
// same zod schemas, and the route table (with the role rule each applies) is what the
// authorization test is generated from.

export const Problem = z
  .object({
    type: z.string().meta({ examples: ['/v0/docs#problem-request.invalid'] }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().meta({ examples: ['request.invalid', 'auth.forbidden', 'resource.not_found'] }),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    details: z.record(z.string(), z.unknown()).optional(),
    requestId: z
      .string()
      .optional()
      .meta({ description: 'The X-Request-Id of this request, as the service logged it' }),
  })
  .meta({
    id: 'Problem',
    description: 'RFC 9457 problem details; `errors` names each bad field (also in `details.fields`)',
  });

type Empty = z.ZodObject<Record<string, never>>;

type Input<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, H extends z.ZodType> = {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  headers: z.output<H>;
};

export interface Operation<
  P extends z.ZodType = Empty,
  Q extends z.ZodType = Empty,
  B extends z.ZodType = Empty,
  R extends z.ZodType = z.ZodType,
  H extends z.ZodType = Empty,
> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form: `/v0/workspaces/{id}/members`. */
  path: string;
  summary: string;
  tag: string;
  /** The role rule it applies (roles.ts); `none`: any authenticated caller. */
  action: Action | 'none';
  scope: Scope;
  params?: P;
  query?: Q;
  body?: B;
  /** Request headers of its own, by their documented names (looked up case-insensitively). */
  headers?: H;
  status?: 200 | 201 | 202 | 204;
  response?: R;
  /**
   * The role rule is checked by the route, on this target, before the handler (a denial is
   * audited); without it the service checks it (rules that depend on what they act on).
   */
  authorizes?: (input: Input<P, Q, B, H>) => { type: string; id: string };
  /** Problems of its own beyond the common ones, by status (documentation). */
  problems?: Record<number, string>;
  /** Another media type the operation may answer with (documentation). */
  alternative?: { type: string; description: string; schema?: z.ZodType };
  handle: (ctx: Context, input: Input<P, Q, B, H>) => Promise<z.input<R> | undefined | void>;
}

// One operation's types are checked where it is declared (`operation`); a list holds any of them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<any, any, any, any, any>;

/** Declares an operation: its handler's input is typed from its schemas. */
export const operation = <
  P extends z.ZodType = Empty,
  Q extends z.ZodType = Empty,
  B extends z.ZodType = Empty,
  R extends z.ZodType = z.ZodType,
  H extends z.ZodType = Empty,
>(
  op: Operation<P, Q, B, R, H>,
): AnyOperation => op as AnyOperation;

/** `a,b` or repeated `?a&a`: a query parameter that may repeat, as an array. */
export const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item).max(50).optional());

export const PageQuery = {
  pageSize: z.coerce.number().int().min(1).max(200).default(50).meta({ description: 'At most 200' }),
  pageToken: z.string().max(200).optional().meta({ description: 'nextPageToken of the previous page' }),
};
/** The schema of a page of `item`s. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextPageToken: z.string().nullable() });
/** A service's page, in /v0's names. */
export const asPage = <T>(p: { items: T[]; nextCursor: string | null }) => ({
  items: p.items,
  nextPageToken: p.nextCursor,
});

/** The named request headers, absent ones left out. */
// A header sent empty is sent: validated as its value, never taken for absent.
const headersOf = (ctx: Context, names: string[]) =>
  Object.fromEntries(
    names.flatMap((name) => (ctx.headers[name.toLowerCase()] !== undefined ? [[name, ctx.get(name)]] : [])),
  );

const koaPath = (path: string) => routerPath(path.replace(/^\/v0/, ''));

const ERROR_STATUSES = {
  400: 'request.invalid (each bad field in `errors`), version.unsupported',
  401: 'auth.unauthenticated: no, a bad, an expired or a revoked Bearer token (X-API-Key is not taken on /v0). A credential we issued that no longer works is recorded in the audit log (denied, with the route’s action, or `request` for a read)',
  403: 'auth.forbidden: the role in the workspace, or the kind of credential, does not allow it (recorded in the audit log)',
  404: 'resource.not_found, also for a workspace the caller is not a member of',
  413: 'request.too_large: a body past BODY_LIMIT_BYTES (1 MiB by default); nothing was written',
  429: 'rate_limit.exceeded: the workspace plan’s budget (Retry-After, RateLimit-* headers)',
  503: 'dependency.unavailable (Retry-After)',
};

export function mount(router: Router, registry: OpenAPIRegistry, auth: AuthService, ops: AnyOperation[]): RouteInfo[] {
  for (const op of ops) {
    const status = op.status ?? 200;
    registry.registerPath({
      method: op.method,
      path: op.path,
      summary: op.summary,
      tags: [op.tag],
      security: [{ Bearer: [] }],
      description:
        op.action === 'none'
          ? 'Any authenticated caller.'
          : `Needs the role of action \`${op.action}\` (see the role table).`,
      request: {
        headers: z.object({
          'X-Compute-API-Version': z.literal(API_VERSION).optional(),
          ...(op.scope === 'active'
            ? {
                'X-Compute-Workspace': WorkspaceHeader.meta({
                  description: 'The workspace to act in (default: the token’s own, or the session’s personal one)',
                }),
              }
            : {}),
          ...(op.headers instanceof z.ZodObject ? op.headers.shape : {}),
        }),
        ...(op.params ? { params: op.params } : {}),
        ...(op.query ? { query: op.query } : {}),
        ...(op.body ? { body: { content: { 'application/json': { schema: op.body } } } } : {}),
      },
      responses: {
        [status]: {
          description: status === 204 ? 'No content' : 'OK',
          ...(op.response
            ? {
                content: {
                  'application/json': { schema: op.response },
                  ...(op.alternative
                    ? {
                        [op.alternative.type]: {
                          schema: op.alternative.schema ?? { type: 'string', description: op.alternative.description },
                        },
                      }
                    : {}),
                },
              }
            : {}),
        },
        ...Object.fromEntries(
          Object.entries({ ...ERROR_STATUSES, ...op.problems }).map(([code, description]) => [
            code,
            { description, content: { 'application/problem+json': { schema: Problem } } },
          ]),
        ),
      },
    });
    router[op.method](koaPath(op.path), async (ctx) => {
      const input = {
        params: op.params ? parse(op.params, ctx.params) : {},
        query: op.query ? parse(op.query, ctx.query) : {},
        body: op.body ? parse(op.body, ctx.request.body) : {},
        headers:
          op.headers instanceof z.ZodObject ? parse(op.headers, headersOf(ctx, Object.keys(op.headers.shape))) : {},
      };
      if (op.authorizes && op.action !== 'none')
        await auth.authorize(principalOf(ctx), op.action, op.authorizes(input));
      const out = await op.handle(ctx, input);
      if (ctx.body !== undefined) return; // the handler answered itself (a stream)
      ctx.status = status;
      if (status !== 204) ctx.body = out;
    });
  }
  return ops.map((op) => ({ method: op.method, path: op.path, action: op.action, scope: op.scope }));
}
