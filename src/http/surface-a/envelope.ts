import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { notFound } from '../../shared/errors';
import { toAppError } from '../errors-to-app';

/**
 * Surface A's one error renderer: `{status: "ERROR", code, message, details?}`, never a payload,
 * never a stack. Successful handlers set `ctx.body` to the payload; this wraps it.
 */
export function surfaceAEnvelope(log: Logger, retryAfterSeconds: number): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound('route');
      if (ctx.status === 405 && !ctx.body) {
        ctx.body = { status: 'ERROR', code: 'request.invalid', message: `${ctx.method} is not allowed on ${ctx.path}` };
        return;
      }
      if (ctx.state.raw || ctx.body === undefined) return;
      ctx.body = { status: 'OK', payload: ctx.body };
    } catch (err) {
      const e = toAppError(err, retryAfterSeconds);
      if (e.code === 'internal') log.error({ err, path: ctx.path }, 'unhandled error');
      else if (e.code === 'dependency.unavailable') log.warn({ err: e.cause ?? e, path: ctx.path }, e.message);
      if (ctx.headerSent) return;
      ctx.status = e.status;
      if (e.retryAfter !== undefined) ctx.set('Retry-After', String(e.retryAfter));
      ctx.body = { status: 'ERROR', code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}), ...(ctx.state.requestId ? { requestId: ctx.state.requestId } : {}) };
    }
  };
}
