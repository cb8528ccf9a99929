import type { Context } from 'koa';
import type { Principal } from '../../auth/principal';
import type { AuthService } from '../../auth/service';
import { AppError } from '../../shared/errors';
import type { Authenticator } from '../authenticate';

// Surface A's own credentials (CONTRACT §4): API keys beside the session JWT both surfaces take,
// and the node keys its agent protocol hands out.

/** `X-API-Key`; a key this instance resolved before costs no statement (see CredentialCache). */
export const apiKeyAuthenticator =
  (auth: AuthService): Authenticator =>
  async (ctx) => {
    const key = ctx.get('X-API-Key');
    if (!key) return undefined;
    return auth.apiKey(key);
  };

/**
 * A node key acts for its node only: the node's own protocol operations take it, nothing else
 * does. A job's command runs beside the agent, so a leaked node key must not reach the workspace.
 * Nor does a managed-pool key reach any: see refuseManagedKey.
 */
export function refuseNodeKey(ctx: Context): void {
  if ((ctx.state.principal as Principal | undefined)?.kind === 'node') {
    throw new AppError(
      'auth.forbidden',
      "A node key may only call its own node's heartbeat, poll, logs, result, drain and rotate-key",
    );
  }
  refuseManagedKey(ctx);
}

/**
 * A managed-pool key registers managed-pool agents and does nothing else: the agents it makes
 * run every workspace's managed jobs, so it must never act as a member of any of them.
 */
export function refuseManagedKey(ctx: Context): void {
  if ((ctx.state.principal as Principal | undefined)?.kind === 'managed') {
    throw new AppError(
      'auth.forbidden',
      'A managed-pool key may only register managed-pool agents (nodes/register); the agent protocol then takes the node key',
    );
  }
}
