import Koa from 'koa';
import type { Middleware } from 'koa';
import type { Services } from '../../services';
import { actInWorkspace } from '../act-in-workspace';
import { auditRefusals } from '../audit-refusals';
import { authenticate, sessionAuthenticator } from '../authenticate';
import { logFollower } from '../log-follower';
import { type RouteInfo, actionsOf, routeOf } from '../route-table';
import { newRouter } from '../router';
import { sessionCookie } from '../session-cookie';
import type { SurfaceDeps } from '../surface-deps';
import { agentsOperations } from './agents-routes';
import { type AuditExporter, auditExporter } from './audit-export';
import { accessTokenAuthenticator, refuseApiKeyHeader } from './identity';
import { jobsOperations } from './jobs-routes';
import { type AnyOperation, mount } from './operations';
import { billingOperations } from './billing-routes';
import { problemDetails } from './problem';
import { sessionOperations } from './session-routes';
import { workspaceRateLimit } from './rate-limit';
import { tokensOperations } from './tokens-routes';
import { webhooksOperations } from './webhooks-routes';
import { workspacesOperations } from './workspaces-routes';

/** Every /v0 operation: what is mounted, documented, and what the authorization test walks. */
const surfaceBOperations = (
  services: Services,
  followLogs: ReturnType<typeof logFollower>,
  exportAudit: AuditExporter,
): AnyOperation[] => [
  ...jobsOperations(services, followLogs),
  ...agentsOperations(services),
  ...workspacesOperations(services, exportAudit),
  ...tokensOperations(services),
  ...webhooksOperations(services),
  ...billingOperations(services),
  ...sessionOperations(),
];

/** `{id}:verb` routes: a client that escapes the colon (`%3A`) means the same route. */
const colons: Middleware = (ctx, next) => {
  if (/%3a/i.test(ctx.path)) ctx.path = ctx.path.replace(/%3a/gi, ':');
  return next();
};

/**
 * Surface B (`/v0`) as an app of its own: problem details, the version header, Bearer credentials
 * (session JWT or `cpat_` token; the session also as the portal's cookie) acting in one
 * workspace, that workspace's plan budget, then the routes. Its routes carry the `/v0` prefix
 * (see mountSurface).
 */
export function surfaceB({ services, config, log, json, registry }: SurfaceDeps): { app: Koa; routes: RouteInfo[] } {
  const { auth } = services;
  const router = newRouter('/v0');
  const routes: RouteInfo[] = [];
  const actionOf = actionsOf(routes);
  router.use(
    authenticate(
      auth,
      [refuseApiKeyHeader, accessTokenAuthenticator(auth), sessionAuthenticator(auth, sessionCookie(config))],
      {
        failuresPerMinute: config.rateLimits.authFailuresPerMinute,
        actionOf,
        missing: 'Send Authorization: Bearer with a session token (compute print-token) or a cpat_ access token',
      },
    ),
  );
  router.use(auditRefusals(auth, actionOf));
  // Every /v0 budget is the workspace's. The path's workspace is read from the path as sent: the
  // router matches case-sensitively, so a route reached here spells `/v0/workspaces/` exactly.
  const route = routeOf(routes);
  router.use(
    actInWorkspace(auth, {
      fromPath: /^\/v0\/workspaces\/([^/]+)/,
      budgetPerWorkspace: true,
      actsNowhere: (ctx) => route(ctx)?.scope === 'caller',
    }),
  );
  router.use(workspaceRateLimit({ auth, plans: services.plans, leased: services.leasedLimiter }));
  router.use(json);
  const followLogs = logFollower({ services, config, log, renderState: (s) => s });
  routes.push(
    ...mount(
      router,
      registry,
      auth,
      surfaceBOperations(services, followLogs, auditExporter({ services, config, log })),
    ),
  );

  const app = new Koa();
  // Mounted, the surface runs on the outer app's context, whose setting decides ctx.ip; the same
  // here keeps the app alone reading client addresses as the mounted one does.
  app.proxy = config.http.trustProxy;
  app.use(problemDetails(log, config.dependencyRetryAfterSeconds));
  app.use(colons);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return { app, routes };
}
