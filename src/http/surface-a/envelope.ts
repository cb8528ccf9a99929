import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { MethodNotAllowed, notFound } from '../../shared/errors';
import { toAppError } from '../errors-to-app';
import type { Answer, LateRequest, RenderLate } from '../late-answer';

/**
 * Surface A's one error renderer: `{status: "ERROR", code, message, details?}`, never a payload,
 * never a stack. Successful handlers set `ctx.body` to the payload; this wraps it.
 */
export function surfaceAEnvelope(log: Logger, retryAfterSeconds: number): Middleware {
  const failure = failureA(log, retryAfterSeconds);
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound('route');
      // 501: a method the router knows nowhere (TRACE); to the caller it is just not allowed here.
      if ((ctx.status === 405 || ctx.status === 501) && !ctx.body)
        throw new MethodNotAllowed(ctx.method, ctx.path, ctx.response.get('Allow').split(/,\s*/).filter(Boolean));
      if (ctx.state.raw || ctx.body === undefined) return;
      ctx.body = { status: 'OK', payload: ctx.body };
    } catch (err) {
      if (ctx.headerSent) return void failure(requestOf(ctx), err);
      const { status, headers, body } = failure(requestOf(ctx), err);
      ctx.status = status;
      for (const [name, value] of Object.entries(headers ?? {})) ctx.set(name, value);
      ctx.body = body;
    }
  };
}

/** The answer of an operation answered after the chain (see LateAnswer), in the same envelope. */
export function lateAnswerA(log: Logger, retryAfterSeconds: number): RenderLate {
  const failure = failureA(log, retryAfterSeconds);
  return (req, payload, failed) =>
    failed ? failure(req, failed.error) : { status: 200, body: { status: 'OK', payload } };
}

/** An error's envelope, status and headers; what operators must see is logged. */
function failureA(log: Logger, retryAfterSeconds: number) {
  return (req: LateRequest, err: unknown): Answer => {
    const e = toAppError(err, retryAfterSeconds);
    if (e.code === 'internal') log.error({ err, path: req.path }, 'unhandled error');
    else if (e.code === 'dependency.unavailable') log.warn({ err: e.cause ?? e, path: req.path }, e.message);
    const headers: Record<string, string> = {};
    if (e.retryAfter !== undefined) headers['Retry-After'] = String(e.retryAfter);
    if (e instanceof MethodNotAllowed) headers.Allow = e.allow.join(', ');
    return {
      status: e.status,
      headers,
      body: {
        status: 'ERROR',
        code: e.code,
        message: e.message,
        ...(e.details ? { details: e.details } : {}),
        ...(req.requestId ? { requestId: req.requestId } : {}),
      },
    };
  };
}

const requestOf = (ctx: Context): LateRequest => ({
  path: ctx.path,
  requestId: ctx.state.requestId as string | undefined,
});
