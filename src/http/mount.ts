import type Koa from 'koa';
import type { Middleware } from 'koa';
import compose from 'koa-compose';

/**
 * Hands every request under `prefix` to a surface's own app: its middleware, composed once, runs
 * on the request's context, as koa-mount does. Two differences from koa-mount, both on purpose:
 * - The prefix is matched whatever its case (`/V0/jobs`, `/API/compute/...`), so a client that got
 *   the case wrong is answered by the surface it aimed at, in that surface's format; the surface's
 *   routes, which match case-sensitively and include the prefix, answer it 404.
 * - ctx.path is left as sent, not stripped: a surface declares its routes with its prefix, as its
 *   OpenAPI paths and route table name them, so whatever reads the path (a signed URL's HMAC, the
 *   workspace named in the path, audit targets, the route label of metrics) sees the whole of it.
 * Requests under no surface's prefix go on to `next`.
 */
export function mountSurface(prefix: string, app: Koa): Middleware {
  const downstream = compose(app.middleware);
  const lower = prefix.toLowerCase();
  return (ctx, next) => {
    const path = ctx.path.toLowerCase();
    return path === lower || path.startsWith(`${lower}/`) ? downstream(ctx, next) : next();
  };
}
