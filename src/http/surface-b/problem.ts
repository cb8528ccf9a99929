import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppError, ERROR_CODES, type ErrorCode, MethodNotAllowed, notFound } from '../../shared/errors';
import { toAppError } from '../errors-to-app';

// Surface B's one error renderer: RFC 9457 problem details (CONTRACT §5), with the code of the
// shared vocabulary, and every answer stamped with the version it speaks.

export const API_VERSION = 'v0';
export const PROBLEM_TYPE_BASE = '/v0/docs#problem-';

export const titleOf = (code: string) => ERROR_CODES[code as ErrorCode]?.title ?? 'Error';

/** What the router said the path takes (its Allow header), for the 405 answer. */
const allowOf = (ctx: { response: { get(h: string): string } }) =>
  ctx.response.get('Allow').split(/,\s*/).filter(Boolean);

export function problemDetails(log: Logger, retryAfterSeconds: number): Middleware {
  return async (ctx, next) => {
    ctx.set('X-Compute-API-Version', API_VERSION);
    try {
      // Sent empty is sent: only v0 or no header at all.
      const asked = ctx.get('X-Compute-API-Version');
      if (ctx.headers['x-compute-api-version'] !== undefined && asked !== API_VERSION) {
        throw new AppError(
          'version.unsupported',
          `X-Compute-API-Version ${JSON.stringify(asked.slice(0, 32))} is not supported; send v0 or nothing`,
          { supported: [API_VERSION] },
        );
      }
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound('route');
      // 501: a method the router knows nowhere (TRACE); to the caller it is just not allowed here.
      if ((ctx.status === 405 || ctx.status === 501) && !ctx.body) {
        // `/jobs/{id}:frobnicate` matches the job's own path, which takes no POST: an unknown verb.
        const verb = /[^/]:([^/:]*)$/.exec(ctx.path)?.[1];
        if (verb !== undefined)
          throw new AppError('resource.not_found', `There is no operation :${verb.slice(0, 40)} on this resource`);
        throw new MethodNotAllowed(ctx.method, ctx.path, allowOf(ctx));
      }
    } catch (err) {
      const e = toAppError(err, retryAfterSeconds);
      if (e.code === 'internal') log.error({ err, path: ctx.path }, 'unhandled error');
      else if (e.code === 'dependency.unavailable') log.warn({ err: e.cause ?? e, path: ctx.path }, e.message);
      if (ctx.headerSent) return;
      const status = e.status;
      // Field problems go in `errors` (CONTRACT §5) and stay in `details.fields` as well, where
      // CONTRACT §3 and Surface A put them, so a client of either finds them.
      const details = e.details as { fields?: Array<{ path: string; message: string }> } | undefined;
      ctx.status = status;
      if (e.retryAfter !== undefined) ctx.set('Retry-After', String(e.retryAfter));
      if (e instanceof MethodNotAllowed) ctx.set('Allow', e.allow.join(', '));
      ctx.type = 'application/problem+json';
      ctx.body = {
        type: `${PROBLEM_TYPE_BASE}${e.code}`,
        title: titleOf(e.code),
        status,
        detail: e.message,
        code: e.code,
        ...(details?.fields ? { errors: details.fields } : {}),
        ...(details && Object.keys(details).length ? { details } : {}),
        ...(ctx.state.requestId ? { requestId: ctx.state.requestId } : {}),
      };
    }
  };
}
