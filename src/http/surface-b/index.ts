import Router from '@koa/router';
import type { Middleware } from 'koa';
import { authenticate, jwtAuthenticator } from '../authenticate';
import type { SurfaceDeps } from '../surface-a';
import { actInWorkspace } from '../act-in-workspace';
import { accessTokenAuthenticator, refuseApiKeyHeader } from './identity';
import type { Services } from '../../services';
import { type AnyOperation, mount } from './operations';
import { type RouteInfo, actionsOf, routeOf } from '../route-table';
import { auditRefusals } from '../audit-refusals';
import { problemDetails } from './problem';
import { workspaceRateLimit } from './rate-limit';
import { tokensOperations } from './tokens-routes';
import { jobsOperations } from './jobs-routes';
import { agentsOperations } from './agents-routes';
import { logFollower } from '../log-follower';
import { type AuditExporter, auditExporter } from '../audit-export';
import { workspacesOperations } from './workspaces-routes';
import { webhooksOperations } from './webhooks-routes';


// Router middleware narrows Koa's context type; mounted on the app they take any context.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Mountable = Middleware<any, any>;

/** Every /v0 operation: what is mounted, documented, and what the authorization test walks. */
const surfaceBOperations = (services: Services, followLogs: ReturnType<typeof logFollower>, exportAudit: AuditExporter): AnyOperation[] => [
  ...jobsOperations(services, followLogs),
  ...agentsOperations(services),
  ...workspacesOperations(services, exportAudit),
  ...tokensOperations(services),
  ...webhooksOperations(services),
];

/**
 * Surface B (`/v0`): problem details, the version header, Bearer credentials (session JWT or
 * `cpat_` token) acting in one workspace, that workspace's plan budget, then the routes.
 */
export function surfaceB({ services, config, log, db, json, registry }: SurfaceDeps): { middleware: Mountable[]; routes: RouteInfo[] } {
  const { credentials } = services;
  const router = new Router({ prefix: '/v0' });
  const routes: RouteInfo[] = [];
  const actionOf = actionsOf(routes);
  router.use(
    authenticate(db, [refuseApiKeyHeader, accessTokenAuthenticator(db, credentials), jwtAuthenticator(services.tokens, db, credentials)], {
      failuresPerMinute: config.rateLimits.authFailuresPerMinute,
      actionOf,
      missing: 'Send Authorization: Bearer with a session token (compute print-token) or a cpat_ access token',
    }),
  );
  router.use(auditRefusals(db, actionOf));
  // Every /v0 budget is the workspace's.
  const route = routeOf(routes);
  router.use(actInWorkspace(db, credentials, { fromPath: /^\/v0\/workspaces\/([^/]+)/, budgetPerWorkspace: true, actsNowhere: (ctx) => route(ctx)?.scope === 'caller' }));
  router.use(workspaceRateLimit({ db, cache: credentials, leaseMs: config.rateLimits.leaseMs, log }));
  router.use(json);
  const followLogs = logFollower({ services, config, log, db, renderState: (s) => s });
  routes.push(...mount(router, registry, db, surfaceBOperations(services, followLogs, auditExporter({ services, config, log, db }))));

  // `{id}:verb` routes: a client that escapes the colon (`%3A`) means the same route.
  const colons: Middleware = (ctx, next) => {
    if (ctx.path.startsWith('/v0/') && /%3a/i.test(ctx.path)) ctx.path = ctx.path.replace(/%3a/gi, ':');
    return next();
  };
  const problems = problemDetails(log, config.dependencyRetryAfterSeconds);
  const inProblems: Middleware = (ctx, next) => (ctx.path.startsWith('/v0/') || ctx.path === '/v0' ? problems(ctx, next) : next());
  return { middleware: [inProblems, colons, router.routes(), router.allowedMethods()], routes };
}
