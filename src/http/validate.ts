import { z } from 'zod';
import { AppError } from '../shared/errors';

type FieldProblem = { path: string; message: string };

/** Whether `value` holds a NUL character anywhere, in a string or an object key (no allocation: the common case). */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === 'object') {
    for (const k in value) if (k.includes('\0') || holdsNul((value as Record<string, unknown>)[k])) return true;
  }
  return false;
}

/**
 * Where `value` holds a NUL character, in a string or an object key. PostgreSQL stores neither
 * in text nor in jsonb, so such input is refused here, by name, instead of failing as a 500.
 */
function nulProblems(value: unknown, path: string[] = [], out: FieldProblem[] = []): FieldProblem[] {
  if (out.length >= 20) return out;
  if (typeof value === 'string') {
    if (value.includes('\0'))
      out.push({ path: path.join('.'), message: 'must not contain the NUL character (U+0000)' });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => nulProblems(v, [...path, String(i)], out));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\0'))
        out.push({ path: [...path, k].join('.'), message: 'names must not contain the NUL character (U+0000)' });
      nulProblems(v, [...path, k], out);
    }
  }
  return out;
}

const invalid = (fields: FieldProblem[]) => new AppError('request.invalid', 'The request is invalid', { fields });

/**
 * Parses input with a zod schema; failures are 400 `request.invalid` naming each bad field.
 * Checked after the schema, so fields the schema cleans (log lines replace NUL) pass.
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (!result.success) {
    throw invalid(
      result.error.issues.flatMap((issue) => {
        const base = issue.path.join('.');
        if (issue.code === 'unrecognized_keys') {
          return issue.keys.map((k) => ({ path: base ? `${base}.${k}` : k, message: 'unknown field' }));
        }
        return [{ path: base, message: issue.message }];
      }),
    );
  }
  if (holdsNul(result.data)) throw invalid(nulProblems(result.data));
  return result.data;
}

/** An e-mail address as we take it; the document carries the same pattern, so generated clients agree. */
export const Email = z.string().trim().max(254).pipe(z.email()).meta({ pattern: z.regexes.email.source });

/** RFC 3339 time, with Z or an offset (as the document's `date-time` format allows). */
export const DateTime = () => z.iso.datetime({ offset: true });
