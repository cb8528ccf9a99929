import type { z } from 'zod';
import type { ApiVariables, SharedVariables } from './variables';

/** A key list every API and worker must share; outside production one is kept in the data folder. */
const sharedKeyRequired = (variable: string) =>
  `${variable} is required in production (base64 of 32 random bytes, e.g. \`openssl rand -base64 32\`, the same on every API and worker)`;

/**
 * What production refuses to start with, every such rule here: secrets that must be given (every
 * instance shares them; elsewhere one is made and kept in the data folder, and login codes are
 * logged) and settings meant for benchmarks. `api` is given when the process runs the API.
 */
export function productionProblems(
  shared: z.output<typeof SharedVariables>,
  api?: z.output<typeof ApiVariables>,
): string[] {
  if (shared.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  if (api && !api.JWT_SECRET)
    problems.push('JWT_SECRET is required in production (at least 32 characters, the same on every API instance)');
  if (api && !api.SMTP_URL) problems.push('SMTP_URL is required in production: login codes are sent by e-mail');
  if (!shared.WEBHOOK_SECRET_KEYS) problems.push(sharedKeyRequired('WEBHOOK_SECRET_KEYS'));
  if (!shared.TEMPORAL_CODEC_KEYS) problems.push(sharedKeyRequired('TEMPORAL_CODEC_KEYS'));
  if (shared.STRIPE_SECRET_KEY && !shared.STRIPE_WEBHOOK_SECRET) {
    problems.push(
      'STRIPE_WEBHOOK_SECRET is required in production when STRIPE_SECRET_KEY is set (the whsec_ secret of the webhook endpoint in Stripe)',
    );
  }
  if (shared.PAYLOAD_CODEC === 'off')
    problems.push('PAYLOAD_CODEC=off is for benchmarks only; production always seals Temporal payloads');
  return problems;
}
