// Domain errors carry a stable code (CONTRACT §8) and an HTTP status; each surface renders them
// in its own format. Anything that is not an AppError is rendered as 500 `internal`.

export type ErrorCode =
  | 'request.invalid'
  | 'job.unsupported_type'
  | 'version.unsupported'
  | 'auth.unauthenticated'
  | 'auth.forbidden'
  | 'auth.signature_invalid'
  | 'auth.url_expired'
  | 'resource.not_found'
  | 'job.invalid_state'
  | 'job.not_assigned'
  | 'resource.conflict'
  | 'request.too_large'
  | 'rate_limit.exceeded'
  | 'quota.exceeded'
  | 'dependency.unavailable'
  | 'internal';

const STATUS: Record<ErrorCode, number> = {
  'request.invalid': 400,
  'job.unsupported_type': 400,
  'version.unsupported': 400,
  'auth.unauthenticated': 401,
  'auth.forbidden': 403,
  'auth.signature_invalid': 403,
  'auth.url_expired': 403,
  'resource.not_found': 404,
  'job.invalid_state': 409,
  'job.not_assigned': 409,
  'resource.conflict': 409,
  'request.too_large': 413,
  'rate_limit.exceeded': 429,
  'quota.exceeded': 429,
  'dependency.unavailable': 503,
  internal: 500,
};

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Seconds, sent as Retry-After. */
    readonly retryAfter?: number,
    /** What a dependency said: logged by the surface, never rendered. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AppError';
    this.status = STATUS[code];
  }
}

export const notFound = (what: string) => new AppError('resource.not_found', `${what} not found`);
export const invalidState = (message: string, details?: Record<string, unknown>) =>
  new AppError('job.invalid_state', message, details);
export const notAssigned = (message = 'This lease no longer holds the job') =>
  new AppError('job.not_assigned', message);
