import { isDatabaseUnavailable } from '../shared/dependency-errors';
import { AppError } from '../shared/errors';

/** Turns anything thrown below the surface into an AppError; unknown errors become `internal`. */
export function toAppError(err: unknown, retryAfterSeconds: number): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; statusCode?: number; type?: string; expose?: boolean; message?: string };
  const status = e?.status ?? e?.statusCode;
  if (status === 413 || e?.type === 'entity.too.large')
    return new AppError('request.too_large', 'The request body is too large');
  if (status === 400 && (e?.type === 'entity.parse.failed' || err instanceof SyntaxError)) {
    return new AppError('request.invalid', 'The request body is not valid JSON');
  }
  if (status === 415 || e?.type === 'charset.unsupported' || e?.type === 'encoding.unsupported') {
    return new AppError('request.invalid', 'The request body must be application/json');
  }
  if (status === 400 && e?.expose) return new AppError('request.invalid', e.message ?? 'Bad request');
  // PostgreSQL's data exceptions (class 22: a value out of range, a character it cannot store)
  // come from what a caller sent that validation let through: the caller's error, not ours.
  if (typeof (err as { code?: unknown })?.code === 'string' && /^22[0-9A-Z]{3}$/.test((err as { code: string }).code)) {
    return new AppError('request.invalid', 'The request holds a value that cannot be stored');
  }
  if (isDatabaseUnavailable(err)) {
    return new AppError('dependency.unavailable', 'The database is unavailable', undefined, retryAfterSeconds);
  }
  return new AppError('internal', 'Internal error');
}
