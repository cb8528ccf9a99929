import Router from '@koa/router';

/**
 * Every router of the API: paths match case-sensitively, so `/v0/Workspaces/{id}` is no route at
 * all rather than `/v0/workspaces/{id}` read by a router while the workspace-from-path binding,
 * audit targets and the rest read the path as sent. A nested router keeps its own options when
 * mounted in another, so each one is made here.
 */
export const newRouter = (prefix?: string): Router => new Router({ sensitive: true, ...(prefix ? { prefix } : {}) });
