import Stripe from 'stripe';
import { AppError } from '../shared/errors';

/**
 * A failed Stripe call as the caller's error: Stripe unreachable, limiting us or failing is a
 * dependency outage (503, retry); a request Stripe refused is a fault of ours (500, logged with
 * what Stripe said, never rendered).
 */
export function stripeFailure(err: unknown, what: string): never {
  const unavailable =
    err instanceof Stripe.errors.StripeConnectionError ||
    err instanceof Stripe.errors.StripeAPIError ||
    err instanceof Stripe.errors.StripeRateLimitError ||
    (err instanceof Stripe.errors.StripeError && (err.statusCode ?? 0) >= 500);
  if (unavailable)
    throw new AppError('dependency.unavailable', `Stripe did not answer; could not ${what}`, undefined, 5, err);
  throw new AppError('internal', `Stripe refused to ${what}`, undefined, undefined, err);
}
