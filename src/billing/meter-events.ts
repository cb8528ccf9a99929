import type { Knex } from 'knex';
import type { Logger } from 'pino';
import Stripe from 'stripe';

// Usage reported to Stripe (CONTRACT §9): each priced managed ledger entry of a workspace with a
// Stripe customer owes one Billing Meter event (stripe_meter_events, filled by a trigger in the
// statement that wrote the entry). This relay sends what is due, with backoff per event. The
// event's identifier comes from the ledger's key, so a resend is the same event to Stripe and a
// duplicate refusal counts as delivered; Stripe keeps identifiers unique for about a day only,
// so what prevents double counting is the ledger's own key, not Stripe. An event carries the part
// of its entry that prepaid credit did not cover, and is never negative: Stripe's meter takes no
// negative events, so corrections are settled on the invoice (sendCredits).

const BATCH = 100;
const AT_ONCE = 8;
/** A claimed event is another relay's again after this, should the claimer die mid-send. */
const CLAIM_SECONDS = 60;
const MAX_BACKOFF_SECONDS = 3600;

export interface MeterEventRow {
  ledger_id: string;
  customer_id: string;
  identifier: string;
  value_microusd: string;
  occurred_at: Date;
  attempts: number;
}

/** Stripe saying it already has this identifier. */
export function isDuplicateRefusal(err: unknown): boolean {
  if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) return false;
  return (
    err.code === 'resource_already_exists' || /identifier.*(already|duplicate)|duplicate.*identifier/i.test(err.message)
  );
}

export function createMeterEventRelay(o: {
  db: Knex;
  stripe: Stripe;
  eventName: string;
  log: Logger;
  firstRetrySeconds?: number;
}) {
  const { db, stripe } = o;
  const first = o.firstRetrySeconds ?? 1;

  /** Takes up to BATCH due events, pushing their next attempt past the claim so others skip them. */
  async function claim(): Promise<MeterEventRow[]> {
    const { rows } = await db.raw(
      `UPDATE stripe_meter_events SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ?)
       WHERE ledger_id IN (
         SELECT ledger_id FROM stripe_meter_events
         WHERE delivered_at IS NULL AND next_attempt_at <= now()
         ORDER BY next_attempt_at, ledger_id LIMIT ? FOR UPDATE SKIP LOCKED)
       RETURNING ledger_id, customer_id, identifier, value_microusd, occurred_at, attempts`,
      [CLAIM_SECONDS, BATCH],
    );
    return rows;
  }

  async function send(e: MeterEventRow): Promise<boolean> {
    try {
      await stripe.billing.meterEvents.create({
        event_name: o.eventName,
        identifier: e.identifier,
        timestamp: Math.floor(new Date(e.occurred_at).getTime() / 1000),
        payload: { stripe_customer_id: e.customer_id, value: String(e.value_microusd) },
      });
    } catch (err) {
      if (!isDuplicateRefusal(err)) {
        await db('stripe_meter_events')
          .where({ ledger_id: e.ledger_id })
          .update({
            next_attempt_at: db.raw('now() + make_interval(secs => ?)', [backoffOf(e.attempts)]),
            last_error: String((err as Error).message ?? err).slice(0, 500),
          });
        return false;
      }
    }
    await db('stripe_meter_events')
      .where({ ledger_id: e.ledger_id })
      .update({ delivered_at: db.fn.now(), last_error: null });
    return true;
  }

  const backoffOf = (attempts: number) => Math.min(first * 2 ** (attempts - 1), MAX_BACKOFF_SECONDS);

  /**
   * An invoice's usage corrections (negative entries the credit did not absorb) as one negative
   * invoice item on the customer's next Stripe invoice; the idempotency key is the invoice's, so a
   * resend within Stripe's 24 hours is the same item, and a delivered one is never sent again.
   */
  async function sendCredits(): Promise<{ delivered: number; failed: number }> {
    const { rows } = await db.raw(
      `UPDATE stripe_invoice_credits SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ?)
       WHERE invoice_id IN (SELECT invoice_id FROM stripe_invoice_credits WHERE delivered_at IS NULL AND next_attempt_at <= now()
                            ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED)
       RETURNING invoice_id, customer_id, amount_cents, attempts`,
      [CLAIM_SECONDS, BATCH],
    );
    let delivered = 0;
    for (const c of rows as Array<{
      invoice_id: string;
      customer_id: string;
      amount_cents: string;
      attempts: number;
    }>) {
      try {
        const item = await stripe.invoiceItems.create(
          {
            customer: c.customer_id,
            amount: Number(c.amount_cents),
            currency: 'usd',
            description: `Usage corrections of invoice ${c.invoice_id}`,
            metadata: { invoice_id: c.invoice_id },
          },
          { idempotencyKey: `invoice-credit:${c.invoice_id}` },
        );
        await db('stripe_invoice_credits')
          .where({ invoice_id: c.invoice_id })
          .update({ delivered_at: db.fn.now(), stripe_invoice_item_id: item.id, last_error: null });
        delivered++;
      } catch (err) {
        await db('stripe_invoice_credits')
          .where({ invoice_id: c.invoice_id })
          .update({
            next_attempt_at: db.raw('now() + make_interval(secs => ?)', [backoffOf(c.attempts)]),
            last_error: String((err as Error).message ?? err).slice(0, 500),
          });
      }
    }
    return { delivered, failed: rows.length - delivered };
  }

  /** Sends everything due now; returns how many were delivered and how many wait for a retry. */
  async function sendDue(): Promise<{ delivered: number; failed: number }> {
    const credits = await sendCredits();
    let delivered = credits.delivered;
    let failed = credits.failed;
    for (;;) {
      const batch = await claim();
      const queue = [...batch];
      await Promise.all(
        Array.from({ length: Math.min(AT_ONCE, queue.length) }, async () => {
          for (let e = queue.shift(); e; e = queue.shift()) {
            if (await send(e)) delivered++;
            else failed++;
          }
        }),
      );
      if (batch.length < BATCH) return { delivered, failed };
    }
  }

  return {
    sendDue,
    /** Sends every `intervalMs` until stopped. */
    start(intervalMs: number) {
      let stopped = false;
      let running: Promise<unknown> = Promise.resolve();
      const tick = async () => {
        if (stopped) return;
        running = sendDue().then(
          (r) => r.failed && o.log.warn(r, 'Stripe meter events not delivered; retrying with backoff'),
          (err) => o.log.warn({ err: String(err) }, 'Stripe meter event relay failed; retrying'),
        );
        await running;
        if (!stopped) timer = setTimeout(tick, intervalMs);
      };
      let timer = setTimeout(tick, intervalMs);
      return {
        async stop() {
          stopped = true;
          clearTimeout(timer);
          await running;
        },
      };
    },
  };
}
