import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { MethodNotAllowed, notFound } from '../../shared/errors';
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
      // 501: a method the router knows nowhere (TRACE); to the caller it is just not allowed here.
      if ((ctx.status === 405 || ctx.status === 501) && !ctx.body) throw new MethodNotAllowed(ctx.method, ctx.path, ctx.response.get('Allow').split(/,\s*/).filter(Boolean));
      if (ctx.state.raw || ctx.body === undefined) return;
      ctx.body = { status: 'OK', payload: ctx.body };
    } catch (err) {
      const e = toAppError(err, retryAfterSeconds);
      if (e.code === 'internal') log.error({ err, path: ctx.path }, 'unhandled error');
      else if (e.code === 'dependency.unavailable') log.warn({ err: e.cause ?? e, path: ctx.path }, e.message);
      if (ctx.headerSent) return;
      ctx.status = e.status;
      if (e.retryAfter !== undefined) ctx.set('Retry-After', String(e.retryAfter));
      if (e instanceof MethodNotAllowed) ctx.set('Allow', e.allow.join(', '));
      ctx.body = { status: 'ERROR', code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}), ...(ctx.state.requestId ? { requestId: ctx.state.requestId } : {}) };
    }
  };
}
