import { ALL_VARIABLES, PROCESS_VARIABLES } from '../../src/config';

/**
 * Everything production requires of an API and a worker (src/config/production.ts), so a test of
 * one production rule meets that rule alone. NODE_ENV is left out: unset, it reads as production.
 */
export const PRODUCTION_SECRETS = {
  JWT_SECRET: 'production-secret-production-secret-0123456789',
  SMTP_URL: 'smtp://127.0.0.1:25',
  WEBHOOK_SECRET_KEYS: Buffer.alloc(32, 1).toString('base64'),
  TEMPORAL_CODEC_KEYS: Buffer.alloc(32, 2).toString('base64'),
};

/**
 * Garbage in every variable of the service's schema that the CLI does not read itself (its API
 * URL, key, config and data folders, the desktop it opens URLs on): none of it is the CLI's business.
 */
export function garbageForTheService(): Record<string, string> {
  const own = new Set(Object.keys(PROCESS_VARIABLES.cli.shape));
  return Object.fromEntries(ALL_VARIABLES.filter((v) => !own.has(v.name)).map((v) => [v.name, '%%garbage%%']));
}
