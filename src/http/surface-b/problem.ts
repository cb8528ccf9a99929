import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppError, type ErrorCode, notFound } from '../../shared/errors';
import { toAppError } from '../errors-to-app';

// Surface B's one error renderer: RFC 9457 problem details (CONTRACT §5), with the code of the
// shared vocabulary, and every answer stamped with the version it speaks.

export const API_VERSION = 'v0';
export const PROBLEM_TYPE_BASE = '/v0/docs#problem-';

const TITLES: Record<ErrorCode, string> = {
  'request.invalid': 'The request is invalid',
  'job.unsupported_type': 'The job type is not supported',
  'version.unsupported': 'The API version is not supported',
  'auth.unauthenticated': 'Authentication is required',
  'auth.forbidden': 'The role does not allow this',
  'auth.signature_invalid': 'The signature is invalid',
  'auth.url_expired': 'The URL has expired',
  'resource.not_found': 'Not found',
  'job.invalid_state': 'The job is not in a state that allows this',
  'job.not_assigned': 'The job is not assigned to this lease',
  'resource.conflict': 'Conflict',
  'request.too_large': 'The request is too large',
  'rate_limit.exceeded': 'Too many requests',
  'quota.exceeded': 'A quota is exhausted',
  'dependency.unavailable': 'A dependency is unavailable',
  internal: 'Internal error',
};

export const titleOf = (code: string) => TITLES[code as ErrorCode] ?? 'Error';

export function problemDetails(log: Logger, retryAfterSeconds: number): Middleware {
  return async (ctx, next) => {
    ctx.set('X-Compute-API-Version', API_VERSION);
    try {
      const asked = ctx.get('X-Compute-API-Version');
      if (asked && asked !== API_VERSION) {
        throw new AppError('version.unsupported', `X-Compute-API-Version ${JSON.stringify(asked.slice(0, 32))} is not supported; send v0 or nothing`, { supported: [API_VERSION] });
      }
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound('route');
      if (ctx.status === 405 && !ctx.body) throw new AppError('request.invalid', `${ctx.method} is not allowed on ${ctx.path}`);
    } catch (err) {
      const e = toAppError(err, retryAfterSeconds);
      if (e.code === 'internal') log.error({ err, path: ctx.path }, 'unhandled error');
      else if (e.code === 'dependency.unavailable') log.warn({ err: e.cause ?? e, path: ctx.path }, e.message);
      if (ctx.headerSent) return;
      const status = e.status;
      const { fields, ...rest } = (e.details ?? {}) as { fields?: Array<{ path: string; message: string }> };
      ctx.status = status;
      if (e.retryAfter !== undefined) ctx.set('Retry-After', String(e.retryAfter));
      ctx.type = 'application/problem+json';
      ctx.body = {
        type: `${PROBLEM_TYPE_BASE}${e.code}`,
        title: titleOf(e.code),
        status,
        detail: e.message,
        code: e.code,
        ...(fields ? { errors: fields } : {}),
        ...(Object.keys(rest).length ? { details: rest } : {}),
      };
    }
  };
}
