import type { z } from 'zod';
import { AppError } from '../shared/errors';

/** Parses input with a zod schema; failures are 400 `request.invalid` naming each bad field. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const fields = result.error.issues.flatMap((issue) => {
    const base = issue.path.join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ path: base ? `${base}.${k}` : k, message: 'unknown field' }));
    }
    return [{ path: base, message: issue.message }];
  });
  throw new AppError('request.invalid', 'The request is invalid', { fields });
}
