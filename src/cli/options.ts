import { InvalidArgumentError } from 'commander';
import { CliError } from './api-client';

/** Commander parser for a count: a whole number of at least 1. */
export const positiveInt = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of at least 1');
  return n;
};

/** Commander parser for a count that may be zero: a whole number of at least 0. */
export const wholeNumber = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('a whole number (0 or more)');
  return n;
};

/** Commander collector for repeatable `--label key=value` flags. */
export const labelPair = (v: string, all: Record<string, string> = {}): Record<string, string> => {
  const eq = v.indexOf('=');
  if (eq <= 0) throw new CliError(`--label wants key=value, got ${v}`);
  return { ...all, [v.slice(0, eq)]: v.slice(eq + 1) };
};

const AGO: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Commander parser for `--since`/`--until`: an ISO time (`2026-11-23T09:00:00Z`, a date alone is
 * its midnight UTC) or a duration ago (`30m`, `2h`, `7d`, `1w`); the ISO instant in UTC.
 */
export const timeBound = (v: string): string => {
  const ago = /^(\d+)([smhdw])$/.exec(v.trim());
  const at = ago ? Date.now() - Number(ago[1]) * AGO[ago[2]] : /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(at))
    throw new InvalidArgumentError('an ISO time (2026-11-23T09:00:00Z) or a duration ago (30m, 2h, 7d, 1w)');
  return new Date(at).toISOString();
};
