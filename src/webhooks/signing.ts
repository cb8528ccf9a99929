import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// Standard Webhooks signing (CONTRACT §7) by the reference npm package: `v1,<base64 HMAC-SHA256 of
// id.timestamp.body>` per secret, space-separated during a rotation. The package strips the
// `whsec_` prefix itself and keys the HMAC with the base64-decoded rest.

export type SignedHeaders = { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };

/** A new endpoint secret: `whsec_` + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The three Standard Webhooks headers for one attempt, signed with every secret given (current
 * first; during a rotation also the previous), signatures space-separated. `at` is the attempt's time.
 */
export function signedHeaders(secrets: string[], eventId: string, at: Date, body: string): SignedHeaders {
  // An empty header would reach the receiver as an unverifiable delivery; refuse it here instead.
  if (secrets.length === 0) throw new Error('signedHeaders needs at least one secret');
  return {
    'webhook-id': eventId,
    // The package signs whole seconds, floored; the header must carry the same number.
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' '),
  };
}
