import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import Router from '@koa/router';
import type { Knex } from 'knex';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Config } from '../../config';
import type { Services } from '../../services';
import { apiKeyAuthenticator, authenticate, jwtAuthenticator, principalOf, refuseNodeKey } from '../authenticate';
import { credentialSlots } from '../credential-slots';
import { logFollower } from '../log-follower';
import { SseLogEvent } from '../log-stream';
import { parse } from '../validate';
import { createRateLimiter, rateLimit } from '../rate-limit';
import { type RouteInfo, actionsOf } from '../route-table';
import { auditRefusals } from '../audit-refusals';
import { authorize } from '../../auth/authorize';
import { artifactPresignRoutes } from './artifacts-routes';
import { authRoutes } from './auth-routes';
import { surfaceAEnvelope } from './envelope';
import { jobsRoutes } from './jobs-routes';
import { keysRoutes } from './keys-routes';
import { nodesRoutes } from './nodes-routes';
import { actInWorkspace } from '../act-in-workspace';
import { type SurfaceAMount, errorResponses } from './operations';
import { z } from 'zod';
import { stateA } from './render';
import { artifactRoutes } from './signed-artifact-routes';


// Router middleware narrows Koa's context type; mounted on the app they take any context.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Mountable = Middleware<any, any>;

export interface SurfaceDeps {
  services: Services;
  config: Config;
  log: Logger;
  db: Knex;
  /** Bodies are read only after the caller is known and within budget. */
  json: Middleware;
  registry: OpenAPIRegistry;
}

/** Surface A (`/api`): its envelope, its credentials (X-API-Key or a session JWT), its per-user budget, its routes. */
// `follow=0` must not quietly mean "follow": only the two words are taken.
const LogsQuery = z.object({ follow: z.enum(['true', 'false']).default('true').meta({ description: 'false: what is stored, then close' }) });

export function surfaceA({ services, config, log, db, json, registry }: SurfaceDeps): { middleware: Mountable[]; routes: RouteInfo[] } {
  const at: SurfaceAMount = { registry, db, routes: [] };
  const limiter = createRateLimiter({ db, ...config.rateLimits, log });

  // Login takes no credential; its budget is the caller's address.
  const login = new Router({ prefix: '/api' });
  login.use(rateLimit(limiter));
  login.use(json);
  login.use(authRoutes(services, at).routes());

  const router = new Router({ prefix: '/api' });
  const { credentials } = services;
  const actionOf = actionsOf(at.routes);
  router.use(
    authenticate(db, [apiKeyAuthenticator(db, credentials), jwtAuthenticator(services.tokens, db, credentials)], {
      failuresPerMinute: config.rateLimits.authFailuresPerMinute,
      actionOf,
    }),
  );
  router.use(auditRefusals(db, actionOf));
  // A session may act in another workspace of its user's (`compute workspaces use`), with the
  // role it has there; without the header it acts in the personal one, as always.
  router.use(actInWorkspace(db, credentials));
  router.use(rateLimit(limiter));
  router.use(json);
  router.use(jobsRoutes(services, at).routes());
  router.use(nodesRoutes(services, at, credentialSlots('polls', config.limits.pollsPerCredential)).routes());
  router.use(keysRoutes(services, at).routes());
  router.use(artifactPresignRoutes(services, at).routes());
  const followLogs = logFollower({ services, config, log, db, renderState: stateA });
  router.get('/compute/jobs/:jobId/logs', async (ctx) => {
    refuseNodeKey(ctx);
    const principal = principalOf(ctx);
    const jobId = ctx.params.jobId;
    const { follow } = parse(LogsQuery, ctx.query);
    await authorize(db, principal, 'job.read', { type: 'job', id: jobId });
    await services.jobs.get(principal, jobId);
    followLogs(ctx, principal, jobId, follow === 'true');
  });
  at.routes.push({ method: 'get', path: '/api/compute/jobs/{jobId}/logs', action: 'job.read', scope: 'active' });
  registry.registerPath({
    method: 'get',
    path: '/api/compute/jobs/{jobId}/logs',
    summary:
      "SSE stream of a job's log: `event: log` (id = seq), `event: log.truncated`, then `event: end`; resume with Last-Event-ID. " +
      'At most SSE_STREAMS_PER_CREDENTIAL streams per credential at once (429 past it); a stream whose credential is revoked or expires is closed. ' +
      '`?follow=false` sends what is stored and closes (with `end` only if the job is over)',
    tags: ['jobs'],
    security: [{ ApiKey: [] }, { Bearer: [] }],
    request: {
      params: z.object({ jobId: z.string() }),
      query: LogsQuery,
      headers: z.object({ 'Last-Event-ID': z.string().regex(/^\d{1,15}$/).optional().meta({ description: 'Resume after this seq' }) }),
    },
    responses: {
      200: { description: 'The stream', content: { 'text/event-stream': { schema: SseLogEvent } } },
      ...errorResponses({
        400: 'request.invalid: `follow` is neither true nor false',
        401: 'auth.unauthenticated',
        403: 'auth.forbidden (a node key, or a role without job.read)',
        404: 'resource.not_found: no such job in the workspace',
        429: 'rate_limit.exceeded: SSE_STREAMS_PER_CREDENTIAL streams already open for this credential, or the rate limit',
        503: 'dependency.unavailable (Retry-After)',
      }),
    },
  });
  // Signed URLs are their own credential: no authentication, and raw bodies (before the JSON parser).
  const artifactUrls = artifactRoutes({ ...services, idleTimeoutMs: config.http.uploadIdleTimeoutMs }, registry);

  const envelope = surfaceAEnvelope(log, config.dependencyRetryAfterSeconds);
  const inEnvelope: Middleware = (ctx, next) => (ctx.path.startsWith('/api/') || ctx.path === '/api' ? envelope(ctx, next) : next());
  // Only for its own paths: the routes a /v0 request matched are in ctx.matched too, and would
  // turn that surface's own 404 (an unknown `:verb`) into a 405 on the way out.
  const allowed = router.allowedMethods() as unknown as Middleware;
  const ownAllowed: Middleware = (ctx, next) => (ctx.path.startsWith('/api/') ? allowed(ctx, next) : next());
  return { middleware: [inEnvelope, artifactUrls.routes(), login.routes(), router.routes(), ownAllowed], routes: at.routes };
}
