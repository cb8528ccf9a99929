import Stripe from 'stripe';
import type { StripeSettings } from '../config/shape';

/**
 * The Stripe SDK as configured: api.stripe.com, or stripe-mock where STRIPE_API_BASE points
 * (tests, `npm run dev`). Null without a secret key: Stripe is off. The SDK's own retries stay
 * off; our callers retry (the meter-event outbox with backoff, checkout by its client).
 */
export function stripeClient(s: StripeSettings): Stripe | null {
  if (!s.secretKey) return null;
  const base = s.apiBase ? new URL(s.apiBase) : null;
  return new Stripe(s.secretKey, {
    maxNetworkRetries: 0,
    timeout: 10_000,
    ...(base && {
      host: base.hostname,
      port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)),
      protocol: base.protocol === 'https:' ? 'https' : 'http',
    }),
  });
}
