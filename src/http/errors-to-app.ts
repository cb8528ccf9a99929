import { isDatabaseUnavailable } from '../shared/dependency-errors';
import { AppError } from '../shared/errors';

/** Turns anything thrown below the surface into an AppError; unknown errors become `internal`. */
export function toAppError(err: unknown, retryAfterSeconds: number): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; statusCode?: number; type?: string; expose?: boolean; message?: string };
  const status = e?.status ?? e?.statusCode;
  if (status === 413 || e?.type === 'entity.too.large') return new AppError('request.too_large', 'The request body is too large');
  if (status === 400 && (e?.type === 'entity.parse.failed' || err instanceof SyntaxError)) {
    return new AppError('request.invalid', 'The request body is not valid JSON');
  }
  if (status === 415 || e?.type === 'charset.unsupported' || e?.type === 'encoding.unsupported') {
    return new AppError('request.invalid', 'The request body must be application/json');
  }
  if (status === 400 && e?.expose) return new AppError('request.invalid', e.message ?? 'Bad request');
  if (isDatabaseUnavailable(err)) {
    return new AppError('dependency.unavailable', 'The database is unavailable', undefined, retryAfterSeconds);
  }
  return new AppError('internal', 'Internal error');
}
