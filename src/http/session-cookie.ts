import type { Context } from 'koa';
import type { ApiConfig } from '../config';
import { AppError } from '../shared/errors';

// The portal's session: the session JWT in an HttpOnly cookie, so no script of the page (nor one
// injected into it) can read it, and nothing long-lived sits in the browser's storage. A cookie is
// sent by the browser on its own, so a state-changing request it authenticates must also carry
// CSRF_HEADER: a cross-site form or a no-cors fetch cannot set a header, and without CORS no other
// origin may send one.

export const CSRF_HEADER = 'X-Compute-CSRF';
/** Methods that change something: only these need the header (a GET, the log stream too, never does). */
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface SessionCookie {
  name: string;
  read(ctx: Context): string | undefined;
  /** Sets the cookie to `token` until `expiresAt` (the token's own expiry). */
  set(ctx: Context, token: string, expiresAt: string): void;
  clear(ctx: Context): void;
}

/**
 * The cookie as the API's public address allows: over https it is Secure and named `__Host-…`
 * (the browser then takes it only from this host over TLS, with Path=/ and no Domain, so a sibling
 * subdomain can neither set nor shadow it). SameSite=Strict keeps it off every cross-site request.
 */
export function sessionCookie(config: Pick<ApiConfig, 'http'>): SessionCookie {
  const secure = config.http.publicUrl?.startsWith('https:') ?? false;
  const name = secure ? '__Host-compute_session' : 'compute_session';
  const write = (ctx: Context, value: string, maxAgeSeconds: number) =>
    ctx.append(
      'Set-Cookie',
      [
        `${name}=${value}`,
        'Path=/',
        `Max-Age=${maxAgeSeconds}`,
        'HttpOnly',
        'SameSite=Strict',
        ...(secure ? ['Secure'] : []),
      ].join('; '),
    );
  return {
    name,
    read: (ctx) => ctx.cookies.get(name) || undefined,
    set: (ctx, token, expiresAt) =>
      write(ctx, token, Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000))),
    clear: (ctx) => write(ctx, '', 0),
  };
}

/** True when a request authenticated by the cookie may go on: a safe method, or the header sent. */
export const csrfSatisfied = (ctx: Context): boolean => !UNSAFE.has(ctx.method) || ctx.get(CSRF_HEADER) === '1';

/** The refusal of a cookie-authenticated change without the header. */
export const csrfRefusal = (ctx: Context) =>
  new AppError(
    'auth.forbidden',
    `A ${ctx.method} authenticated by the session cookie must send the header ${CSRF_HEADER}: 1 (a cross-site form cannot)`,
  );

/** For the routes that set or clear the cookie, which take no credential: the header all the same. */
export function requireCsrfHeader(ctx: Context): void {
  if (!csrfSatisfied(ctx)) throw csrfRefusal(ctx);
}
