import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { isDuplicateRefusal } from '../../src/billing/meter-events';

// A meter event Stripe already has (same identifier within its window) counts as delivered; any
// other refusal is retried with backoff. stripe-mock never refuses a duplicate, so the
// classification is checked here on the SDK's own error types.
describe('meter event refusals', () => {
  const invalid = (raw: { message: string; code?: string }) =>
    new Stripe.errors.StripeInvalidRequestError({ type: 'invalid_request_error', ...raw });

  it('takes Stripe saying it has the identifier as delivered', () => {
    assert.equal(
      isDuplicateRefusal(
        invalid({ message: 'A meter event with identifier cu_1 already exists.', code: 'resource_already_exists' }),
      ),
      true,
    );
    assert.equal(
      isDuplicateRefusal(invalid({ message: 'Duplicate identifier cu_1 for event_name compute_usage_microusd' })),
      true,
    );
  });

  it('retries everything else', () => {
    assert.equal(isDuplicateRefusal(invalid({ message: 'No such customer: cus_x', code: 'resource_missing' })), false);
    assert.equal(
      isDuplicateRefusal(
        new Stripe.errors.StripeConnectionError({
          message: 'connect ECONNREFUSED',
          type: 'api_connection_error',
        } as never),
      ),
      false,
    );
    assert.equal(isDuplicateRefusal(new Error('identifier already exists')), false, 'only a refusal from Stripe');
  });
});
