import type { Middleware } from 'koa';
import type { Principal } from '../auth/principal';
import type { AuthService } from '../auth/service';
import { AppError } from '../shared/errors';
import type { ActionOf } from './authenticate';

const PATH_MAX = 256;

/**
 * Every 403 to a caller we know is one audit entry (CONTRACT §5). authorize() records the
 * refusals of the role rules itself, with their target; any other (a node key off its own node,
 * a credential an operation does not take, a job type a key may not submit) is recorded here,
 * under the action it names (`details.action`) or else its route's, on its own: there is no change
 * for it to join.
 */
export function auditRefusals(auth: AuthService, actionOf: ActionOf): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const p = ctx.state.principal as Principal | undefined;
      if (p && err instanceof AppError && err.code === 'auth.forbidden' && !err.audited) {
        await auth.recordRefusal({
          workspaceId: p.workspaceId,
          actor: p.actor,
          action: typeof err.details?.action === 'string' ? err.details.action : actionOf(ctx),
          target: { type: 'request', id: `${ctx.method} ${ctx.path}`.slice(0, PATH_MAX) },
          origin: p.origin,
          details: { status: 403, reason: err.message },
        });
        err.audited = true;
      }
      throw err;
    }
  };
}
