import type { z } from 'zod';
import type { SharedVariables } from './variables';

/** What production refuses to start with: settings meant for benchmarks, Stripe without its signing secret. */
export function productionProblems(shared: z.output<typeof SharedVariables>): string[] {
  if (shared.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  if (shared.STRIPE_SECRET_KEY && !shared.STRIPE_WEBHOOK_SECRET) {
    problems.push('STRIPE_WEBHOOK_SECRET is required in production when STRIPE_SECRET_KEY is set (the whsec_ secret of the webhook endpoint in Stripe)');
  }
  if (shared.PAYLOAD_CODEC === 'off') problems.push('PAYLOAD_CODEC=off is for benchmarks only; production always seals Temporal payloads');
  return problems;
}
