import { CliError } from './api-client';

/** Commander collector for repeatable `--label key=value` flags. */
export const labelPair = (v: string, all: Record<string, string> = {}): Record<string, string> => {
  const eq = v.indexOf('=');
  if (eq <= 0) throw new CliError(`--label wants key=value, got ${v}`);
  return { ...all, [v.slice(0, eq)]: v.slice(eq + 1) };
};
