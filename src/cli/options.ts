import { InvalidArgumentError } from 'commander';
import { CliError } from './api-client';

/** Commander parser for a count: a whole number of at least 1. */
export const positiveInt = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of at least 1');
  return n;
};

/** Commander collector for repeatable `--label key=value` flags. */
export const labelPair = (v: string, all: Record<string, string> = {}): Record<string, string> => {
  const eq = v.indexOf('=');
  if (eq <= 0) throw new CliError(`--label wants key=value, got ${v}`);
  return { ...all, [v.slice(0, eq)]: v.slice(eq + 1) };
};
