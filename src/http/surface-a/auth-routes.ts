import { Email } from '../validate';
import type Router from '@koa/router';
import { z } from 'zod';
import type { Services } from '../../services';
import { newRouter } from '../router';
import { type SurfaceAMount, postOperation } from './operations';

const User = z.object({ id: z.string(), email: z.string(), workspaceId: z.string(), createdAt: z.string() });

/** Login by e-mailed code; the only Surface A operations that take no credential. */
export function authRoutes(services: Services, at: SurfaceAMount): Router {
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
    body: z.strictObject({ email: Email, code: z.string().regex(/^\d{6}$/, 'six digits') }),
    response: z.object({ token: z.string(), expiresAt: z.string(), user: User }),
    handle: (ctx, { email, code }) => services.login.verifyCode(email, code, ctx.ip, ctx.get('User-Agent') || undefined),
  });
  return router;
}
