import Koa, { type Middleware } from 'koa';
import { z } from 'zod';
import { authenticate, principalOf, sessionAuthenticator } from '../authenticate';
import { actInWorkspace } from '../act-in-workspace';
import { auditRefusals } from '../audit-refusals';
import { credentialSlots } from '../credential-slots';
import { logFollower } from '../log-follower';
import { SseLogEvent } from '../log-stream';
import type { FastOperations } from '../fast-path';
import { type RouteInfo, actionsOf } from '../route-table';
import { newRouter } from '../router';
import type { SurfaceDeps } from '../surface-deps';
import { sessionCookie } from '../session-cookie';
import { parse } from '../validate';
import { artifactPresignRoutes } from './artifacts-routes';
import { authRoutes } from './auth-routes';
import { billingRoutes } from './billing-routes';
import { lateAnswerA, surfaceAEnvelope } from './envelope';
import { apiKeyAuthenticator, refuseNodeKey } from './identity';
import { jobsRoutes } from './jobs-routes';
import { keysRoutes } from './keys-routes';
import { nodesRoutes } from './nodes-routes';
import { type SurfaceAMount, errorResponses } from './operations';
import { createRateLimiter, rateLimit } from './rate-limit';
import { stateA } from './render';
import { artifactRoutes } from './signed-artifact-routes';
import { stripeEventsRoute } from './stripe-events-route';

// `follow=0` must not quietly mean "follow": only the two words are taken.
const LogsQuery = z.object({
  follow: z.enum(['true', 'false']).default('true').meta({ description: 'false: what is stored, then close' }),
});

/**
 * Surface A (`/api`) as an app of its own: its envelope, its credentials (X-API-Key or a session
 * JWT, as a Bearer token or the portal's cookie), its per-user budget, its routes. Its routes
 * carry the `/api` prefix (see mountSurface).
 */
export function surfaceA({ services, config, log, json, registry }: SurfaceDeps): {
  app: Koa;
  routes: RouteInfo[];
  fast: FastOperations;
} {
  const { auth } = services;
  const at: SurfaceAMount = { registry, auth, routes: [], fast: new Map() };
  const limiter = createRateLimiter(services.leasedLimiter, config.rateLimits);
  const cookie = sessionCookie(config);

  // Login takes no credential; its budget is the caller's address.
  const login = newRouter('/api');
  login.use(rateLimit(limiter));
  login.use(json);
  login.use(authRoutes(services, at, cookie).routes());

  const router = newRouter('/api');
  const actionOf = actionsOf(at.routes);
  // What every operation runs before its body is read; the fast path runs the same.
  const guards: Middleware[] = [
    authenticate(auth, [apiKeyAuthenticator(auth), sessionAuthenticator(auth, cookie)], {
      failuresPerMinute: config.rateLimits.authFailuresPerMinute,
      actionOf,
    }),
    auditRefusals(auth, actionOf),
    // A session may act in another workspace of its user's (`compute workspaces use`), with the
    // role it has there; without the header it acts in the personal one, as always.
    actInWorkspace(auth),
    rateLimit(limiter),
  ];
  for (const guard of guards) router.use(guard);
  router.use(json);
  router.use(jobsRoutes(services, at).routes());
  router.use(
    nodesRoutes(
      services,
      at,
      credentialSlots('polls', config.limits.pollsPerCredential),
      lateAnswerA(log, config.dependencyRetryAfterSeconds),
    ).routes(),
  );
  router.use(keysRoutes(services, at).routes());
  router.use(artifactPresignRoutes(services, at).routes());
  router.use(billingRoutes(services, at).routes());
  const followLogs = logFollower({ services, config, log, renderState: stateA });
  router.get('/compute/jobs/:jobId/logs', async (ctx) => {
    refuseNodeKey(ctx);
    const principal = principalOf(ctx);
    const jobId = ctx.params.jobId;
    const { follow } = parse(LogsQuery, ctx.query);
    await auth.authorize(principal, 'job.read', { type: 'job', id: jobId });
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
      headers: z.object({
        'Last-Event-ID': z
          .string()
          .regex(/^\d{1,15}$/)
          .optional()
          .meta({ description: 'Resume after this seq' }),
      }),
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

  const app = new Koa();
  // Mounted, the surface runs on the outer app's context, whose setting decides ctx.ip; the same
  // here keeps the app alone reading client addresses as the mounted one does.
  app.proxy = config.http.trustProxy;
  const envelope = surfaceAEnvelope(log, config.dependencyRetryAfterSeconds);
  app.use(envelope);
  app.use(artifactUrls.routes());
  app.use(
    stripeEventsRoute({ stripeEvents: services.stripeEvents, maxBytes: config.limits.bodyBytes }, registry).routes(),
  );
  app.use(login.routes());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return { app, routes: at.routes, fast: { chain: [envelope, ...guards], operations: at.fast } };
}
