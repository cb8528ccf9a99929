import type { Context } from 'koa';
import type { Action } from '../auth/roles';

// Every mounted route of both surfaces, with the role rule it applies: what the authorization test
// is generated from, and what names the action of a refused request in the audit log.

/** Where an operation acts: the active workspace (header, else the credential's), the path's, or none in particular. */
export type Scope = 'active' | 'path' | 'caller';

export interface RouteInfo {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form: `/v0/workspaces/{id}/members`. */
  path: string;
  /** The role rule it applies (roles.ts); `none`: any authenticated caller, or no credential at all. */
  action: Action | 'none';
  scope: Scope;
  /** A node key may call it for its own node (Surface A's agent protocol). */
  nodeKey?: boolean;
  /** Only a session token may call it (Surface A's key minting and presigning). */
  sessionOnly?: boolean;
}

/** `/v0/jobs/{id}:cancel` → `/v0/jobs/:id\\:cancel`, as the router matches it (a literal colon escaped). */
export const routerPath = (openApiPath: string) => openApiPath.replace(/:/g, '\\:').replace(/\{(\w+)\}/g, ':$1');

/**
 * The route a request matched, from the table (known before the route's own middleware runs):
 * a refused credential's audit entry names its action, and a session's workspace is checked
 * unless the route acts in none in particular.
 */
export function routeOf(routes: RouteInfo[]): (ctx: Context) => RouteInfo | undefined {
  // Read at the first request: the table fills as the surface mounts its routes.
  let byRoute: Map<string, RouteInfo> | undefined;
  return (ctx) => {
    byRoute ??= new Map(routes.map((r) => [`${r.method.toUpperCase()} ${routerPath(r.path)}`, r]));
    // Each layer of the chain sets ctx._matchedRoute to its own path as it runs, so a middleware
    // sees its own; the route is the last matched layer that takes this method.
    const layers = (ctx.matched ?? []) as Array<{ path: string; methods: string[] }>;
    const route = layers.filter((l) => l.methods.includes(ctx.method)).at(-1);
    return route && byRoute.get(`${ctx.method} ${route.path}`);
  };
}

/** The audit action a request attempts: its route's, or `request` for a route of no role rule. */
export function actionsOf(routes: RouteInfo[]): (ctx: Context) => string {
  const route = routeOf(routes);
  return (ctx) => {
    const action = route(ctx)?.action;
    return !action || action === 'none' ? 'request' : action;
  };
}
