import Stripe from 'stripe';
import { STRIPE_EVENTS_PATH } from '../../src/http/surface-a/stripe-events-route';
import { testEnv } from './env';

// Stripe's events as Stripe sends them, signed with the SDK's own test helper.

const SECRET = () => testEnv().vars.STRIPE_WEBHOOK_SECRET;
let seq = 0;

export interface StripeEventInput {
  type: string;
  object: Record<string, unknown>;
  created?: number;
  id?: string;
}

/** A Stripe event as Stripe sends it: the JSON body and its Stripe-Signature header. */
export function signedEvent(e: StripeEventInput, o: { secret?: string; timestamp?: number } = {}) {
  const created = e.created ?? Math.floor(Date.now() / 1000);
  const id = e.id ?? `evt_test_${Date.now().toString(36)}_${seq++}`;
  const payload = JSON.stringify({
    id,
    object: 'event',
    type: e.type,
    created,
    api_version: '2026-10-28',
    livemode: false,
    data: { object: e.object },
  });
  const header = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: o.secret ?? SECRET(),
    timestamp: o.timestamp,
  });
  return { id, payload, header };
}

/** Posts it to the API (Surface A's envelope taken off the answer). */
export async function sendEvent(ev: { payload: string; header?: string }, url = testEnv().url) {
  const res = await fetch(`${url}${STRIPE_EVENTS_PATH}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(ev.header && { 'Stripe-Signature': ev.header }) },
    body: ev.payload,
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads what it asserts
  const body = (await res.json()) as Record<string, any>;
  return { status: res.status, body: body.payload ?? body };
}
