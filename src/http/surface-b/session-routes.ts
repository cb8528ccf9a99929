import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { principalOf } from '../authenticate';
import { type AnyOperation, operation } from './operations';

const Session = z
  .object({
    user: z.object({ id: z.string(), email: z.string() }),
    workspaceId: z.string().meta({
      description: 'Where the request acts: the user’s own workspace unless X-Compute-Workspace names another',
    }),
    expiresAt: z.string(),
  })
  .meta({ id: 'Session' });

/**
 * Who a session is: how the portal, whose cookie it cannot read, learns whether it is signed in,
 * as whom, and which workspace is the user's own (acting elsewhere is X-Compute-Workspace).
 */
export function sessionOperations(): AnyOperation[] {
  return [
    operation({
      method: 'get',
      path: '/v0/session',
      tag: 'auth',
      summary:
        'The session this request carries (a session token, or the portal’s cookie): its user, its workspace and its expiry. An access token is 403',
      action: 'none',
      scope: 'caller',
      response: Session,
      handle: async (ctx) => {
        const p = principalOf(ctx);
        if (p.credential !== 'jwt' || !p.userId || !p.actor.email || p.expiresAt === undefined) {
          throw new AppError('auth.forbidden', 'Only a session has a session: this is an access token');
        }
        return {
          user: { id: p.userId, email: p.actor.email },
          workspaceId: p.workspaceId,
          expiresAt: new Date(p.expiresAt).toISOString(),
        };
      },
    }),
  ];
}
