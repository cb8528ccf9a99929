import type { Knex } from 'knex';
import { type Actor, type Origin, appendAudit } from '../audit/log';
import { notFound } from '../shared/errors';
import { grantCredit, setCreditBalance } from './credit';
import { trimDecimal, usdNumber } from './money';
import { type Plan, type PlanId, readPlans } from './plans';

// A workspace's subscription: its plan (workspaces.plan) and its billing account (billing_accounts:
// status, current period, prepaid credit). Every workspace has an account (a trigger opens it with
// the workspace). Lock order, for whoever locks both: the workspace row (FOR NO KEY UPDATE, as
// lockOwner takes it, which lets inserts referencing the workspace through), then its account.

export const SUBSCRIPTION_STATUSES = ['active', 'pending', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export interface Subscription {
  workspaceId: string;
  plan: PlanId;
  status: SubscriptionStatus;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  /** Prepaid credit left in USD, an exact decimal to the micro-dollar (`25`, `12.5`): usage draws it as it is metered. */
  creditUsd: string;
}

type Db = Knex | Knex.Transaction;

/**
 * The workspace's subscription (null: no such workspace). `lock` (in a transaction) holds the
 * workspace row and its account until it ends (FOR NO KEY UPDATE).
 */
export async function readSubscription(
  db: Db,
  workspaceId: string,
  opts: { lock?: boolean } = {},
): Promise<Subscription | null> {
  const query = db('workspaces as w')
    .join('billing_accounts as a', 'a.workspace_id', 'w.id')
    .where('w.id', workspaceId)
    .first(
      'w.id',
      'w.plan',
      'a.status',
      'a.current_period_start',
      'a.current_period_end',
      db.raw('round(a.credit_usd, 6)::text AS credit_usd'),
    );
  const row = opts.lock ? await query.forNoKeyUpdate('w', 'a') : await query;
  if (!row) return null;
  return {
    workspaceId: row.id,
    plan: row.plan,
    status: row.status,
    currentPeriodStart: new Date(row.current_period_start).toISOString(),
    currentPeriodEnd: new Date(row.current_period_end).toISOString(),
    creditUsd: trimDecimal(row.credit_usd),
  };
}

/**
 * The workspace's subscription with its plan's record, read together (inside the caller's
 * transaction when `db` is one): what pricing and a credit check start from.
 */
export async function billingOf(
  db: Db,
  workspaceId: string,
  opts: { lock?: boolean } = {},
): Promise<{ subscription: Subscription; plan: Plan }> {
  const subscription = await readSubscription(db, workspaceId, opts);
  if (!subscription) throw notFound('Workspace');
  const plan = (await readPlans(db)).find((p) => p.id === subscription.plan);
  if (!plan) throw notFound('Plan');
  return { subscription, plan };
}

/** CONTRACT §9's subscription record: the credit as a JSON number, rendered from the exact decimal. */
export function subscriptionRecord(s: Subscription) {
  return {
    plan: s.plan,
    status: s.status,
    currentPeriodStart: s.currentPeriodStart,
    currentPeriodEnd: s.currentPeriodEnd,
    creditUsd: usdNumber(s.creditUsd),
  };
}

export interface BillingChange {
  workspaceId: string;
  plan?: PlanId;
  /** The balance wanted, an exact decimal already checked (see parseUsdAmount): a grant or an adjustment of the difference. */
  creditUsd?: string;
  /** A grant added to the balance, expiring at `expiresAt` when given. */
  grant?: { amountUsd: string; expiresAt?: Date };
  actor: Actor;
  origin?: Origin;
}

/**
 * Sets a workspace's plan and/or prepaid credit (an operator's change until checkout exists), with
 * its `billing.set` audit entry in the same transaction. The workspace's cached settings are
 * dropped on every API instance by the workspaces trigger, so /v0 applies the new plan's budget at once.
 */
export async function setBilling(
  db: Knex,
  change: BillingChange,
): Promise<{ before: Subscription; after: Subscription }> {
  return db.transaction(async (trx) => {
    const before = await readSubscription(trx, change.workspaceId, { lock: true });
    if (!before) throw notFound('Workspace');
    if (change.plan !== undefined && change.plan !== before.plan)
      await trx('workspaces').where({ id: change.workspaceId }).update({ plan: change.plan });
    if (change.creditUsd !== undefined) await setCreditBalance(trx, change.workspaceId, change.creditUsd, change.actor);
    if (change.grant) await grantCredit(trx, { workspaceId: change.workspaceId, ...change.grant, actor: change.actor });
    const after = (await readSubscription(trx, change.workspaceId))!;
    await appendAudit(trx, {
      workspaceId: change.workspaceId,
      actor: change.actor,
      action: 'billing.set',
      target: { type: 'workspace', id: change.workspaceId },
      origin: change.origin,
      details: {
        plan: { old: before.plan, new: after.plan },
        creditUsd: { old: before.creditUsd, new: after.creditUsd },
        ...(change.grant
          ? { grant: { amountUsd: change.grant.amountUsd, expiresAt: change.grant.expiresAt?.toISOString() ?? null } }
          : {}),
      },
    });
    return { before, after };
  });
}

/** Subscriptions as the surfaces read them. */
export function createSubscriptions(o: { db: Knex }) {
  return {
    async get(workspaceId: string): Promise<Subscription> {
      const s = await readSubscription(o.db, workspaceId);
      if (!s) throw notFound('Workspace');
      return s;
    },
  };
}

export type Subscriptions = ReturnType<typeof createSubscriptions>;
