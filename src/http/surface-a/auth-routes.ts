import { Email } from '../validate';
import type Router from '@koa/router';
import { z } from 'zod';
import type { Services } from '../../services';
import { newRouter } from '../router';
import { CSRF_HEADER, type SessionCookie, requireCsrfHeader } from '../session-cookie';
import { type SurfaceAMount, postOperation } from './operations';

const User = z.object({ id: z.string(), email: z.string(), workspaceId: z.string(), createdAt: z.string() });
const Code = z.string().regex(/^\d{6}$/, 'six digits');
const CsrfHeader = z.object({
  [CSRF_HEADER]: z.literal('1').meta({
    description: 'Required: a cross-site form cannot send it. The portal sends it on every POST, PUT, PATCH and DELETE',
  }),
});
const SetCookie = (what: string) => ({ 'Set-Cookie': { description: what, schema: { type: 'string' as const } } });

/**
 * Login by e-mailed code, and the portal's cookie session; the only Surface A operations that
 * take no credential.
 */
export function authRoutes(services: Services, at: SurfaceAMount, cookie: SessionCookie): Router {
  const router = newRouter('/auth');
  postOperation(router, at, '/api/auth', {
    path: '/request-otp',
    tag: 'auth',
    action: 'none',
    auth: 'none',
    summary:
      'Mail a 6-digit login code (valid 10 minutes, 5 tries). Always 200 for a well-formed address, account or not; past an hourly ' +
      'limit (OTP_MAX_PER_HOUR per address and client IP, OTP_MAX_PER_HOUR_PER_IP per client IP, OTP_MAX_PER_HOUR_PER_EMAIL per ' +
      'address) or when the mail relay fails, still 200 and nothing is sent',
    body: z.strictObject({ email: Email }),
    response: z.object({ sent: z.literal(true) }),
    handle: async (ctx, { email }) => {
      await services.login.requestCode(email, ctx.ip);
      return { sent: true as const };
    },
  });
  postOperation(router, at, '/api/auth', {
    path: '/verify-otp',
    tag: 'auth',
    action: 'none',
    auth: 'none',
    summary:
      'Exchange the code for a session JWT; the first login creates the user and a personal workspace (owner). Past ' +
      'OTP_MAX_FAILED_VERIFY_PER_HOUR_PER_IP wrong codes in an hour from one client IP, 429 rate_limit.exceeded with Retry-After',
    body: z.strictObject({ email: Email, code: Code }),
    response: z.object({ token: z.string(), expiresAt: z.string(), user: User }),
    handle: (ctx, { email, code }) =>
      services.login.verifyCode(email, code, ctx.ip, ctx.get('User-Agent') || undefined),
  });
  postOperation(router, at, '/api/auth', {
    path: '/session',
    tag: 'auth',
    action: 'none',
    auth: 'none',
    summary:
      `verify-otp for a browser: the session JWT is set as an HttpOnly, SameSite=Strict cookie (\`${cookie.name}\`, Path=/, Secure and ` +
      '`__Host-` named when PUBLIC_URL is https) and left out of the answer, so no script of the page can read it. Both surfaces ' +
      `take the cookie wherever they take a session token; a POST, PUT, PATCH or DELETE it authenticates must send ${CSRF_HEADER}: 1, ` +
      'else 403 auth.forbidden (audited). A request with Authorization or X-API-Key is authenticated by that header alone',
    body: z.strictObject({ email: Email, code: Code }),
    headers: CsrfHeader,
    response: z.object({ expiresAt: z.string(), user: User }),
    responseHeaders: SetCookie('The session cookie, until the session expires'),
    handle: async (ctx, { email, code }) => {
      requireCsrfHeader(ctx);
      const { token, expiresAt, user } = await services.login.verifyCode(
        email,
        code,
        ctx.ip,
        ctx.get('User-Agent') || undefined,
      );
      cookie.set(ctx, token, expiresAt);
      return { expiresAt, user };
    },
  });
  postOperation(router, at, '/api/auth', {
    path: '/sign-out',
    tag: 'auth',
    action: 'none',
    auth: 'none',
    summary: `End the session: its token (the cookie's, or the Authorization header's) is refused on every instance before this answers, and the cookie is cleared (${CSRF_HEADER}: 1 required, so no other site can sign a person out)`,
    body: z.strictObject({}),
    headers: CsrfHeader,
    response: z.object({ signedOut: z.literal(true) }),
    responseHeaders: SetCookie('The session cookie, expired'),
    handle: async (ctx) => {
      requireCsrfHeader(ctx);
      const bearer = /^Bearer (.+)$/i.exec(ctx.get('Authorization'))?.[1];
      const token = cookie.read(ctx) ?? bearer;
      if (token) await services.auth.signOut(token);
      cookie.clear(ctx);
      return { signedOut: true as const };
    },
  });
  return router;
}
