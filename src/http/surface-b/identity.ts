import type { AuthService } from '../../auth/service';
import { AppError } from '../../shared/errors';
import type { Authenticator } from '../authenticate';

// Who a /v0 request acts as, and in which workspace (CONTRACT §5): a session JWT or a personal
// access token, acting in the path's workspace, else X-Compute-Workspace, else its own.

/** Surface A's key header is refused by name on /v0, before any lookup. */
export const refuseApiKeyHeader: Authenticator = async (ctx) => {
  if (ctx.get('X-API-Key') && !ctx.get('Authorization')) {
    throw new AppError(
      'auth.unauthenticated',
      "/v0 takes Authorization: Bearer <session token or cpat_ token>; X-API-Key is Surface A's",
    );
  }
  return undefined;
};

/** `Authorization: Bearer cpat_…`: see AuthService.accessToken; any other Bearer is a session's. */
export const accessTokenAuthenticator =
  (auth: AuthService): Authenticator =>
  async (ctx) => {
    const match = /^Bearer\s+(cpat_\S*)$/i.exec(ctx.get('Authorization'));
    if (!match) return undefined;
    return auth.accessToken(match[1]);
  };
