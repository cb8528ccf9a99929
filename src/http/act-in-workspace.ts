import { z } from 'zod';
import type { Context, Middleware } from 'koa';
import type { Principal } from '../auth/principal';
import type { AuthService } from '../auth/service';
import { AppError, notFound } from '../shared/errors';
import { principalOf } from './authenticate';

const WORKSPACE_ID = /^ws_[0-9a-z]{26}$/;

/** The header as the OpenAPI document describes it; sent empty it is refused like any malformed ID. */
export const WorkspaceHeader = z.string().regex(WORKSPACE_ID).optional();

/**
 * Moves the principal to the workspace the request acts on: one named in the path (`fromPath`),
 * whatever the header says; otherwise `X-Compute-Workspace`; otherwise the credential's own. Only
 * a session may act elsewhere, with its role there: a workspace the caller is not a member of, or
 * another than a token's or key's own, is 404, as if it did not exist. A session no longer a
 * member of its own (personal) workspace reaches only the routes that act in none (`actsNowhere`:
 * list and create workspaces) until it names one it belongs to.
 */
export function actInWorkspace(
  auth: AuthService,
  o: { fromPath?: RegExp; budgetPerWorkspace?: boolean; actsNowhere?: (ctx: Context) => boolean } = {},
): Middleware {
  return async (ctx, next) => {
    const p = principalOf(ctx);
    const fromPath = o.fromPath?.exec(ctx.path)?.[1];
    const sent = ctx.headers['x-compute-workspace'] !== undefined;
    const header = ctx.get('X-Compute-Workspace');
    if (!fromPath && sent && !WORKSPACE_ID.test(header)) {
      throw new AppError('request.invalid', 'X-Compute-Workspace is not a workspace ID', {
        fields: [{ path: 'X-Compute-Workspace', message: 'expected ws_ followed by 26 characters' }],
      });
    }
    const wanted = fromPath ?? (header || p.workspaceId);
    let acting: Principal = p;
    if (wanted !== p.workspaceId) {
      if (!WORKSPACE_ID.test(wanted) || p.credential !== 'jwt' || !p.userId) throw notFound('Workspace');
      const role = await auth.roleOf(p.userId, wanted);
      if (!role) throw notFound('Workspace');
      acting = { ...acting, workspaceId: wanted, role };
    } else if (p.credential === 'jwt' && !p.role && !o.actsNowhere?.(ctx)) {
      throw notFound('Workspace');
    }
    ctx.state.principal = o.budgetPerWorkspace ? { ...acting, rateSubject: `ws:${acting.workspaceId}` } : acting;
    // A tail call: nothing to do afterwards, so no frame of this stays suspended for the request.
    return next();
  };
}
