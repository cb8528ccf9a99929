import type { Knex } from 'knex';
import Stripe from 'stripe';
import { appendAudit } from '../audit/log';
import { AppError } from '../shared/errors';
import { markInvoicePaid } from './invoices';
import { readSubscription, type SubscriptionStatus } from './subscription';

// Stripe's signed events (CONTRACT §9). Each is checked against STRIPE_WEBHOOK_SECRET, then
// applied once: its `evt_` id is stored in the transaction that applies it, so a replay finds it
// and changes nothing, and a crash between the two leaves neither. Events arrive in any order:
// a subscription state is applied only if its event is newer (Stripe's `created`) than the
// newest one applied to the account, so an old `subscription.updated` that arrives last is stale.
// `created` is in whole seconds: at a tie the state itself decides, and a subscription canceled
// stays canceled (it never becomes active again; a new one has a new id).

const STRIPE = { type: 'system', id: 'stripe' } as const;
type Trx = Knex.Transaction;
export type EventOutcome = 'applied' | 'stale' | 'ignored' | 'duplicate';

/** Stripe's subscription statuses, as ours. */
const STATUS: Record<string, SubscriptionStatus> = {
  active: 'active',
  trialing: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  incomplete: 'pending',
  paused: 'past_due',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
};

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === 'string' ? v : (v?.id ?? null));

export function createStripeEvents(o: { db: Knex; webhookSecret?: string; toleranceSeconds: number }) {
  // Signature checks need no API key: the SDK's webhook helpers are static.
  const webhooks = Stripe.webhooks;

  /** The event, if its signature holds for this exact body within the tolerance. */
  function verify(raw: Buffer, signature: string | undefined): Stripe.Event {
    if (!o.webhookSecret)
      throw new AppError('billing.not_available', 'Stripe events are not accepted here (no STRIPE_WEBHOOK_SECRET)');
    if (!signature) throw new AppError('auth.signature_invalid', 'Stripe-Signature header missing');
    try {
      return webhooks.constructEvent(raw, signature, o.webhookSecret, o.toleranceSeconds) as Stripe.Event;
    } catch (err) {
      throw new AppError(
        'auth.signature_invalid',
        `Stripe signature refused: ${(err as Error).message.split('\n')[0].slice(0, 200)}`,
      );
    }
  }

  async function apply(event: Stripe.Event): Promise<EventOutcome> {
    assertWellFormed(event);
    return o.db.transaction(async (trx) => {
      const at = new Date(event.created * 1000);
      const { rows } = await trx.raw(
        `INSERT INTO stripe_events (id, type, stripe_created_at, outcome) VALUES (?, ?, ?, 'ignored')
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        [event.id, event.type, at],
      );
      if (rows.length === 0) return 'duplicate';
      const { workspaceId, outcome } = await effect(trx, event, at);
      await trx('stripe_events').where({ id: event.id }).update({ outcome, workspace_id: workspaceId });
      return outcome;
    });
  }

  return { verify, apply };
}

export type StripeEvents = ReturnType<typeof createStripeEvents>;

/** The types we act on, each about an object with an id. */
const HANDLED = new Set([
  'checkout.session.completed',
  'checkout.session.expired',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
]);

/** A signed event is still input: one we act on needs its id, its time and its object's id (400 naming what is missing). */
function assertWellFormed(event: Stripe.Event): void {
  const fields: Array<{ path: string; message: string }> = [];
  if (typeof event?.id !== 'string' || event.id === '') fields.push({ path: 'id', message: 'an event id is required' });
  if (typeof event?.type !== 'string') fields.push({ path: 'type', message: 'an event type is required' });
  if (HANDLED.has(event?.type)) {
    if (!Number.isInteger(event.created) || event.created < 0)
      fields.push({ path: 'created', message: 'a time in whole seconds is required' });
    const object = (event.data as { object?: { id?: unknown } } | undefined)?.object;
    if (typeof object?.id !== 'string' || object.id === '')
      fields.push({ path: 'data.object.id', message: `a ${event.type} event names its object` });
  }
  if (fields.length)
    throw new AppError('request.invalid', `The Stripe event is malformed: ${fields.map((f) => f.path).join(', ')}`, {
      fields,
    });
}

interface Effect {
  workspaceId: string | null;
  outcome: Exclude<EventOutcome, 'duplicate'>;
}

async function effect(trx: Trx, event: Stripe.Event, at: Date): Promise<Effect> {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      // A session completes once: another event about it (a new id) changes nothing. Stale, it
      // stays open (the state it would set is older than the account's), so nothing claims it done.
      const ours = await trx('stripe_checkout_sessions')
        .where({ id: session.id, status: 'open' })
        .forUpdate()
        .first('workspace_id', 'plan');
      if (!ours) return { workspaceId: null, outcome: 'ignored' };
      const changed = await changeSubscription(trx, event, at, ours.workspace_id, {
        plan: ours.plan,
        status: 'active',
        subscriptionId: idOf(session.subscription),
        customerId: idOf(session.customer),
      });
      if (changed.outcome === 'applied')
        await trx('stripe_checkout_sessions')
          .where({ id: session.id })
          .update({ status: 'complete', completed_at: at });
      return changed;
    }
    case 'checkout.session.expired': {
      const ours = await trx('stripe_checkout_sessions')
        .where({ id: event.data.object.id, status: 'open' })
        .update({ status: 'expired' })
        .returning('workspace_id');
      if (ours.length === 0) return { workspaceId: null, outcome: 'ignored' };
      const workspaceId = ours[0].workspace_id as string;
      // Pending only while some checkout of the workspace is still open.
      const open = await trx('stripe_checkout_sessions')
        .where({ workspace_id: workspaceId, status: 'open' })
        .first('id');
      if (!open)
        await trx('billing_accounts')
          .where({ workspace_id: workspaceId, status: 'pending' })
          .update({ status: 'active', updated_at: trx.fn.now() });
      return { workspaceId, outcome: 'applied' };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const sub = event.data.object;
      const workspaceId = await workspaceOfCustomer(trx, idOf(sub.customer), sub.metadata?.workspaceId);
      if (!workspaceId) return { workspaceId: null, outcome: 'ignored' };
      const deleted = event.type === 'customer.subscription.deleted';
      const plan = deleted ? 'hobby' : await planOf(trx, sub);
      return changeSubscription(trx, event, at, workspaceId, {
        plan: plan ?? undefined,
        status: deleted ? 'canceled' : (STATUS[sub.status] ?? 'pending'),
        subscriptionId: sub.id,
        customerId: idOf(sub.customer),
      });
    }
    case 'invoice.paid': {
      const invoice = event.data.object;
      const workspaceId = await workspaceOfCustomer(trx, idOf(invoice.customer), invoice.metadata?.workspaceId);
      if (!workspaceId) return { workspaceId: null, outcome: 'ignored' };
      const paid = await markPaid(trx, workspaceId, invoice, at);
      return { workspaceId, outcome: paid ? 'applied' : 'ignored' };
    }
    case 'invoice.payment_failed': {
      const invoice = event.data.object;
      const workspaceId = await workspaceOfCustomer(trx, idOf(invoice.customer), invoice.metadata?.workspaceId);
      if (!workspaceId) return { workspaceId: null, outcome: 'ignored' };
      return changeSubscription(trx, event, at, workspaceId, { status: 'past_due' });
    }
    default:
      return { workspaceId: null, outcome: 'ignored' };
  }
}

async function workspaceOfCustomer(
  trx: Trx,
  customerId: string | null,
  claimed: string | undefined,
): Promise<string | null> {
  if (customerId) {
    const row = await trx('billing_accounts').where({ stripe_customer_id: customerId }).first('workspace_id');
    if (row) return row.workspace_id;
  }
  // Metadata alone is trusted only for an account that has no customer yet: the event is signed.
  if (!claimed) return null;
  const row = await trx('billing_accounts')
    .where({ workspace_id: claimed })
    .whereNull('stripe_customer_id')
    .first('workspace_id');
  return row?.workspace_id ?? null;
}

/** The plan a subscription is for: its metadata (set at checkout), else its recurring price. */
async function planOf(trx: Trx, sub: Stripe.Subscription): Promise<string | null> {
  const named = sub.metadata?.plan;
  if (named && (await trx('billing_plans').where({ id: named }).first('id'))) return named;
  const prices = (sub.items?.data ?? []).map((i) => i.price?.id).filter(Boolean) as string[];
  if (prices.length === 0) return null;
  const row = await trx('billing_plans').whereIn('stripe_price_id', prices).first('id');
  return row?.id ?? null;
}

interface Change {
  plan?: string;
  status: SubscriptionStatus;
  subscriptionId?: string | null;
  customerId?: string | null;
}

/**
 * An event older than the newest applied is stale. One of the same second is not, unless it would
 * bring back a subscription already canceled: a canceled subscription never becomes active again.
 */
function isStale(
  syncedAt: Date,
  at: Date,
  status: SubscriptionStatus,
  subscriptionId: string | null,
  c: Change,
): boolean {
  if (syncedAt.getTime() !== at.getTime()) return syncedAt > at;
  const sameSubscription = !c.subscriptionId || c.subscriptionId === subscriptionId;
  return status === 'canceled' && c.status !== 'canceled' && sameSubscription;
}

/** Applies a subscription state unless a newer event's state is already applied; a plan change is an audit entry. */
async function changeSubscription(
  trx: Trx,
  event: Stripe.Event,
  at: Date,
  workspaceId: string,
  c: Change,
): Promise<Effect> {
  const before = await readSubscription(trx, workspaceId, { lock: true });
  if (!before) return { workspaceId: null, outcome: 'ignored' };
  const account = await trx('billing_accounts')
    .where({ workspace_id: workspaceId })
    .first('stripe_synced_at', 'stripe_subscription_id');
  if (
    account.stripe_synced_at &&
    isStale(new Date(account.stripe_synced_at), at, before.status, account.stripe_subscription_id, c)
  )
    return { workspaceId, outcome: 'stale' };
  if (c.plan && c.plan !== before.plan) await trx('workspaces').where({ id: workspaceId }).update({ plan: c.plan });
  await trx('billing_accounts')
    .where({ workspace_id: workspaceId })
    .update({
      status: c.status,
      stripe_synced_at: at,
      ...(c.subscriptionId && { stripe_subscription_id: c.subscriptionId }),
      ...(c.customerId && { stripe_customer_id: trx.raw('coalesce(stripe_customer_id, ?)', [c.customerId]) }),
      updated_at: trx.fn.now(),
    });
  const plan = c.plan ?? before.plan;
  if (plan !== before.plan || c.status !== before.status) {
    await appendAudit(trx, {
      workspaceId,
      actor: STRIPE,
      action: 'billing.plan_changed',
      target: { type: 'workspace', id: workspaceId },
      details: {
        plan: { old: before.plan, new: plan },
        status: { old: before.status, new: c.status },
        eventId: event.id,
        eventType: event.type,
      },
    });
  }
  return { workspaceId, outcome: 'applied' };
}

/** Stripe's invoice paid: ours for it becomes paid (see markInvoicePaid); an account past due is active again. */
async function markPaid(trx: Trx, workspaceId: string, invoice: Stripe.Invoice, at: Date): Promise<boolean> {
  const paid = await markInvoicePaid(trx, {
    workspaceId,
    invoiceId: invoice.metadata?.invoiceId,
    stripeInvoiceId: invoice.id,
    periodEnd: invoice.period_end ? new Date(invoice.period_end * 1000) : undefined,
    paidAt: at,
  });
  if (paid)
    await trx('billing_accounts')
      .where({ workspace_id: workspaceId, status: 'past_due' })
      .update({ status: 'active', updated_at: trx.fn.now() });
  return paid;
}
