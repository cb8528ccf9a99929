import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import { type Actor, type Origin, appendAudit } from '../audit/log';
import { AppError } from '../shared/errors';
import { stripeFailure } from './stripe-failure';

// Checkout (CONTRACT §9): a Stripe Checkout Session in subscription mode for a plan with a Stripe
// price. The plan changes only when Stripe's signed event says the checkout completed
// (stripe-events.ts); until then the account is `pending`.

export interface CheckoutRequest {
  workspaceId: string;
  plan: string;
  successUrl: string;
  cancelUrl: string;
  actor: Actor;
  origin?: Origin;
}

export function createCheckout(o: { db: Knex; stripe: Stripe | null; log: Logger }) {
  const { db, stripe } = o;

  /** The workspace's Stripe customer, made once: the idempotency key makes a concurrent second call Stripe's same customer. */
  async function customerOf(api: Stripe, workspaceId: string): Promise<string> {
    const known = await db('billing_accounts').where({ workspace_id: workspaceId }).first('stripe_customer_id');
    if (known?.stripe_customer_id) return known.stripe_customer_id;
    const customer = await api.customers
      .create({ metadata: { workspaceId } }, { idempotencyKey: `compute-customer-${workspaceId}` })
      .catch((err: unknown) => stripeFailure(err, 'create the Stripe customer'));
    const { rows } = await db.raw(
      `UPDATE billing_accounts SET stripe_customer_id = coalesce(stripe_customer_id, ?), updated_at = now()
       WHERE workspace_id = ? RETURNING stripe_customer_id`,
      [customer.id, workspaceId],
    );
    return rows[0].stripe_customer_id;
  }

  return {
    async create(r: CheckoutRequest): Promise<{ checkoutUrl: string; sessionId: string }> {
      const plan = await db('billing_plans')
        .where({ id: r.plan })
        .first('id', 'stripe_price_id', 'stripe_usage_price_id');
      if (!plan?.stripe_price_id) {
        const offered = await db('billing_plans').whereNotNull('stripe_price_id').orderBy('position').pluck('id');
        throw new AppError('request.invalid', `plan: no checkout for "${r.plan}"; one of ${offered.join(', ')}`, {
          field: 'plan',
          offered,
        });
      }
      if (!stripe)
        throw new AppError(
          'billing.not_available',
          'Payments are not configured on this service (no STRIPE_SECRET_KEY)',
        );
      const customer = await customerOf(stripe, r.workspaceId);
      const metadata = { workspaceId: r.workspaceId, plan: plan.id };
      const session = await stripe.checkout.sessions
        .create({
          mode: 'subscription',
          customer,
          client_reference_id: r.workspaceId,
          // The plan's price, and its metered usage price: Stripe takes no quantity on a metered line.
          line_items: [
            { price: plan.stripe_price_id, quantity: 1 },
            ...(plan.stripe_usage_price_id ? [{ price: plan.stripe_usage_price_id }] : []),
          ],
          success_url: r.successUrl,
          cancel_url: r.cancelUrl,
          metadata,
          subscription_data: { metadata },
        })
        .catch((err: unknown) => stripeFailure(err, 'create the checkout session'));
      if (!session.url)
        throw new AppError('dependency.unavailable', 'Stripe returned a checkout session without a URL', undefined, 5);
      await db.transaction(async (trx) => {
        await trx('stripe_checkout_sessions').insert({ id: session.id, workspace_id: r.workspaceId, plan: plan.id });
        // Pending until Stripe says otherwise; an account behind on payment stays past_due.
        await trx('billing_accounts')
          .where({ workspace_id: r.workspaceId })
          .whereIn('status', ['active', 'canceled'])
          .update({ status: 'pending', updated_at: trx.fn.now() });
        await appendAudit(trx, {
          workspaceId: r.workspaceId,
          actor: r.actor,
          // The action the role rule names, so a member's refused checkout and an admin's share it.
          action: 'billing.checkout',
          target: { type: 'workspace', id: r.workspaceId },
          origin: r.origin,
          details: { plan: plan.id, sessionId: session.id },
        });
      });
      return { checkoutUrl: session.url, sessionId: session.id };
    },
  };
}

export type Checkout = ReturnType<typeof createCheckout>;
