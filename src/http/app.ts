import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { ApiConfig } from '../config';
import type { Services } from '../services';
import type { ComputeCodec } from '../temporal/payload-codec';
import { codecRoutes } from './codec-routes';
import { docsRoutes } from './docs';
import { fastPath } from './fast-path';
import { type HealthDeps, healthRoutes } from './health-routes';
import { mountSurface } from './mount';
import { buildDocument, newRegistry } from './openapi';
import { portalRoutes } from './portal';
import { requestContext } from './request-context';
import type { RouteInfo } from './route-table';
import { newRouter } from './router';
import { surfaceA } from './surface-a';
import { surfaceB } from './surface-b';

/**
 * Mounts each surface's app at its prefix, and the routes outside them (health, the one OpenAPI
 * document of both, the docs page, the portal at `/`).
 */
export function createApp({
  services,
  config,
  log,
  health,
  codec,
}: {
  services: Services;
  config: ApiConfig;
  log: Logger;
  health: HealthDeps;
  codec: ComputeCodec;
}): {
  app: Koa;
  routes: RouteInfo[];
  /** The HTTP server's request listener: the fast path's operations, then the app. */
  handler: RequestListener;
} {
  const app = new Koa();
  app.proxy = config.http.trustProxy;
  // A client closing a stream (SSE reader gone, long poll abandoned) is normal, not an error.
  const reportError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE') return;
    log.error({ err }, 'http error');
  };
  app.on('error', reportError);
  const registry = newRegistry();
  // Bodies are read only after the caller is known and within budget: an anonymous client cannot
  // make us buffer a megabyte, and a bad credential costs no parsing.
  const parseJson = bodyParser({ enableTypes: ['json'], jsonLimit: config.limits.bodyBytes, encoding: 'utf-8' });
  // Parsed, then on: the parser's frame does not stay suspended for the request's whole length
  // (a long poll's 30 s), which would cost each waiting poll its memory.
  const json: Koa.Middleware = async (ctx, next) => {
    await parseJson(ctx, async () => undefined);
    return next();
  };
  const deps = { services, config, log, json, registry };
  const a = surfaceA(deps);
  const b = surfaceB(deps);
  const document = buildDocument(registry);

  const open = newRouter();
  const serveDocument = (ctx: Koa.Context) => {
    ctx.state.raw = true;
    ctx.body = document;
  };
  open.get('/api/openapi.json', serveDocument);
  open.get('/v0/openapi.json', serveDocument);

  const context = requestContext();
  app.use(context);
  const debug = log.isLevelEnabled('debug');
  if (debug) {
    app.use(async (ctx, next) => {
      const started = Date.now();
      await next();
      log.debug({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Date.now() - started }, 'request');
    });
  }
  app.use(open.routes());
  app.use(healthRoutes(health).routes());
  app.use(docsRoutes().routes());
  app.use(portalRoutes({ config, log }).routes());
  app.use(codecRoutes({ services, config, log, json, codec }).routes());
  // Whatever the case of its prefix, a request under /api or /v0 is its surface's to answer: a
  // path in the wrong case is that surface's 404, in its format (mountSurface).
  app.use(mountSurface('/api', a.app));
  app.use(mountSurface('/v0', b.app));
  const koa = app.callback();
  // Off with API_FAST_PATH=false, and at debug level, whose request log is Koa middleware.
  const fast =
    config.http.fastPath && !debug
      ? fastPath({
          before: [context],
          surface: a.fast,
          proxy: app.proxy,
          bodyBytes: config.limits.bodyBytes,
          onError: reportError,
        })
      : undefined;
  const handler: RequestListener = fast
    ? (req, res) => {
        if (!fast(req, res)) void koa(req, res);
      }
    : koa;
  return { app, routes: [...a.routes, ...b.routes], handler };
}
