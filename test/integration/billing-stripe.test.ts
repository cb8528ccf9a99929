import assert from 'node:assert/strict';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { ok, post } from '../support/http';
import { sendEvent, signedEvent } from '../support/stripe';
import { team } from '../support/team';
import { cliUser } from '../support/cli';
import { DEV_STRIPE_WEBHOOK_SECRET, loadApiConfig, loadWorkerConfig } from '../../src/config';
import { PRODUCTION_SECRETS } from '../support/settings';

// Checkout and Stripe's signed events (CONTRACT §9) against stripe-mock, which checks the shape of
// every request the SDK sends. Events are built here as Stripe builds them and signed with the
// SDK's own test helper.

const db = () => testEnv().db;
const URLS = { successUrl: 'https://app.example/billing/done', cancelUrl: 'https://app.example/billing' };
const account = (workspaceId: string) => db()('billing_accounts').where({ workspace_id: workspaceId }).first();
const planOf = async (workspaceId: string) => (await db()('workspaces').where({ id: workspaceId }).first('plan')).plan;
const planChanges = (workspaceId: string) =>
  db()('audit_log')
    .where({ workspace_id: workspaceId, action: 'billing.plan_changed' })
    .orderBy([{ column: 'at' }, { column: 'id' }])
    .select('details', 'actor_type');

/** A user's personal workspace with a checkout to payg opened, as its admin (the owner) would. */
async function checkedOut(plan = 'payg') {
  const user = await login();
  const workspaceId = user.user.workspaceId as string;
  const session = await ok('/compute/billing/checkout/create', { plan, ...URLS }, user.token);
  return { user, workspaceId, session };
}

describe('billing: checkout through Stripe', () => {
  it('opens a Checkout Session for a plan, once a customer per workspace, pending until Stripe says', async () => {
    const { user, workspaceId, session } = await checkedOut();
    assert.match(session.sessionId, /^cs_/);
    assert.match(session.checkoutUrl, /^https:\/\/checkout\.stripe\.com\//);
    const first = await account(workspaceId);
    assert.match(first.stripe_customer_id, /^cus_/);
    assert.equal(first.status, 'pending');
    assert.equal(await planOf(workspaceId), 'hobby', "the plan changes only on Stripe's word");
    const sub = await ok('/compute/billing/subscription', {}, user.token);
    assert.equal(sub.status, 'pending');
    await ok('/compute/billing/checkout/create', { plan: 'team', ...URLS }, user.token);
    assert.equal(
      (await account(workspaceId)).stripe_customer_id,
      first.stripe_customer_id,
      'one customer per workspace',
    );
    const sessions = await db()('stripe_checkout_sessions')
      .where({ workspace_id: workspaceId })
      .orderBy('created_at')
      .pluck('plan');
    assert.deepEqual(sessions, ['payg', 'team']);
    const audited = await db()('audit_log')
      .where({ workspace_id: workspaceId, action: 'billing.checkout' })
      .count<{ count: string }[]>('* as count');
    assert.equal(Number(audited[0].count), 2);
  });

  it('refuses a member (403), an unknown plan and a plan without checkout (400 naming plan), a bad URL (400)', async () => {
    const t = await team();
    const asMember = await fetch(`${testEnv().url}/api/compute/billing/checkout/create`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${t.member.token}`,
        'X-Compute-Workspace': t.ws.id,
      },
      body: JSON.stringify({ plan: 'payg', ...URLS }),
    });
    assert.equal(asMember.status, 403);
    assert.equal(((await asMember.json()) as { code: string }).code, 'auth.forbidden');
    const user = await login();
    for (const plan of ['platinum', 'hobby', 'enterprise']) {
      const r = await post('/compute/billing/checkout/create', { plan, ...URLS }, user.token);
      assert.equal(r.status, 400, plan);
      assert.equal(r.body.code, 'request.invalid');
      assert.match(r.body.message, /plan/);
    }
    const bad = await post(
      '/compute/billing/checkout/create',
      { plan: 'payg', successUrl: 'javascript:alert(1)', cancelUrl: URLS.cancelUrl },
      user.token,
    );
    assert.equal(bad.status, 400);
    assert.equal((await account(user.user.workspaceId)).stripe_customer_id, null, 'nothing made for a refused request');
  });
});

describe('billing: Stripe signed events', () => {
  it('applies checkout.session.completed once, however often it is sent', async () => {
    const { workspaceId, session } = await checkedOut();
    const customer = (await account(workspaceId)).stripe_customer_id;
    const ev = signedEvent({
      type: 'checkout.session.completed',
      object: {
        id: session.sessionId,
        object: 'checkout.session',
        customer,
        subscription: 'sub_test_1',
        client_reference_id: workspaceId,
      },
    });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push((await sendEvent(ev)).body.outcome);
    assert.deepEqual(outcomes, ['applied', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
    assert.equal(await planOf(workspaceId), 'payg');
    const acct = await account(workspaceId);
    assert.equal(acct.status, 'active');
    assert.equal(acct.stripe_subscription_id, 'sub_test_1');
    const changes = await planChanges(workspaceId);
    assert.equal(changes.length, 1, 'one audit entry');
    assert.equal(changes[0].actor_type, 'system');
    assert.deepEqual(changes[0].details.plan, { old: 'hobby', new: 'payg' });
    assert.equal(changes[0].details.eventId, ev.id);
    const again = signedEvent({
      type: 'checkout.session.completed',
      object: { id: session.sessionId, object: 'checkout.session', customer },
    });
    assert.equal((await sendEvent(again)).body.outcome, 'ignored', 'a session completes once, whatever the event id');
  });

  it('refuses a forged, a stale and a foreign signature, and stores nothing of them', async () => {
    const { workspaceId, session } = await checkedOut();
    const object = { id: session.sessionId, object: 'checkout.session', client_reference_id: workspaceId };
    const good = signedEvent({ type: 'checkout.session.completed', object });
    const forged = {
      payload: good.payload.replace('checkout.session.completed', 'checkout.session.expired'),
      header: good.header,
    };
    const stale = signedEvent(
      { type: 'checkout.session.completed', object },
      { timestamp: Math.floor(Date.now() / 1000) - 301 },
    );
    const foreign = signedEvent({ type: 'checkout.session.completed', object }, { secret: 'whsec_someone_else' });
    const unsigned = { payload: good.payload };
    for (const [name, ev] of Object.entries({ forged, stale, foreign, unsigned })) {
      const r = await sendEvent(ev);
      assert.equal(r.status, 403, name);
      assert.equal(r.body.code, 'auth.signature_invalid', name);
    }
    const stored = await db()('stripe_events')
      .whereIn('id', [good.id, stale.id, foreign.id])
      .count<{ count: string }[]>('* as count');
    assert.equal(Number(stored[0].count), 0);
    assert.equal(await planOf(workspaceId), 'hobby');
    assert.equal((await sendEvent(good)).body.outcome, 'applied', 'the genuine one still applies');
  });

  it('ends in the newest subscription state whatever order the updates arrive in', async () => {
    const { workspaceId } = await checkedOut();
    const customer = (await account(workspaceId)).stripe_customer_id;
    const now = Math.floor(Date.now() / 1000);
    const sub = (created: number, status: string, plan: string) =>
      signedEvent({
        type: 'customer.subscription.updated',
        created,
        object: { id: 'sub_order', object: 'subscription', customer, status, metadata: { plan }, items: { data: [] } },
      });
    const oldest = sub(now - 30, 'active', 'payg');
    const middle = sub(now - 20, 'past_due', 'payg');
    const newest = sub(now - 10, 'active', 'team');
    const outcomes = [];
    for (const ev of [newest, oldest, middle]) outcomes.push((await sendEvent(ev)).body.outcome);
    assert.deepEqual(outcomes, ['applied', 'stale', 'stale']);
    assert.equal(await planOf(workspaceId), 'team');
    assert.equal((await account(workspaceId)).status, 'active');
    const failed = signedEvent({
      type: 'invoice.payment_failed',
      created: now - 5,
      object: { id: 'in_x', object: 'invoice', customer },
    });
    assert.equal((await sendEvent(failed)).body.outcome, 'applied');
    assert.equal((await account(workspaceId)).status, 'past_due');
    const deleted = signedEvent({
      type: 'customer.subscription.deleted',
      created: now,
      object: { id: 'sub_order', object: 'subscription', customer, status: 'canceled', metadata: {} },
    });
    assert.equal((await sendEvent(deleted)).body.outcome, 'applied');
    assert.equal(await planOf(workspaceId), 'hobby');
    assert.equal((await account(workspaceId)).status, 'canceled');
    const plans = (await planChanges(workspaceId)).map((c) => `${c.details.plan.new}/${c.details.status.new}`);
    assert.deepEqual(plans, ['team/active', 'team/past_due', 'hobby/canceled']);
  });

  it('a tie in created never drops a change: a cancel in the same second as the update before it applies, and nothing of that second brings it back', async () => {
    const { workspaceId } = await checkedOut();
    const customer = (await account(workspaceId)).stripe_customer_id;
    const now = Math.floor(Date.now() / 1000);
    const updated = signedEvent({
      type: 'customer.subscription.updated',
      created: now,
      object: {
        id: 'sub_tie',
        object: 'subscription',
        customer,
        status: 'active',
        metadata: { plan: 'team' },
        items: { data: [] },
      },
    });
    const deleted = signedEvent({
      type: 'customer.subscription.deleted',
      created: now,
      object: { id: 'sub_tie', object: 'subscription', customer, status: 'canceled', metadata: {} },
    });
    assert.equal((await sendEvent(updated)).body.outcome, 'applied');
    assert.equal((await sendEvent(deleted)).body.outcome, 'applied', 'the cancel of the same second is no stale event');
    assert.deepEqual([await planOf(workspaceId), (await account(workspaceId)).status], ['hobby', 'canceled']);
    // The update again, as a retry of the same second would bring it (a new event id): canceled stays.
    const replayed = signedEvent({
      type: 'customer.subscription.updated',
      created: now,
      object: {
        id: 'sub_tie',
        object: 'subscription',
        customer,
        status: 'active',
        metadata: { plan: 'team' },
        items: { data: [] },
      },
    });
    assert.equal((await sendEvent(replayed)).body.outcome, 'stale');
    assert.deepEqual([await planOf(workspaceId), (await account(workspaceId)).status], ['hobby', 'canceled']);
  });

  it('a stale checkout.session.completed leaves its session open; a signed event without an object id is 400 naming it', async () => {
    const { workspaceId, session } = await checkedOut();
    const customer = (await account(workspaceId)).stripe_customer_id;
    const now = Math.floor(Date.now() / 1000);
    const newer = signedEvent({
      type: 'customer.subscription.updated',
      created: now,
      object: {
        id: 'sub_newer',
        object: 'subscription',
        customer,
        status: 'past_due',
        metadata: { plan: 'payg' },
        items: { data: [] },
      },
    });
    assert.equal((await sendEvent(newer)).body.outcome, 'applied');
    const older = signedEvent({
      type: 'checkout.session.completed',
      created: now - 60,
      object: { id: session.sessionId, object: 'checkout.session', customer, subscription: 'sub_newer' },
    });
    assert.equal((await sendEvent(older)).body.outcome, 'stale');
    assert.equal(
      (await db()('stripe_checkout_sessions').where({ id: session.sessionId }).first('status')).status,
      'open',
      'not marked complete by an event that applied nothing',
    );
    assert.equal((await account(workspaceId)).status, 'past_due');

    for (const object of [{ object: 'checkout.session' }, { id: '', object: 'subscription' }]) {
      const nameless = signedEvent({
        type: object.object === 'subscription' ? 'customer.subscription.updated' : 'checkout.session.completed',
        object,
      });
      const refused = await sendEvent(nameless);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'request.invalid');
      assert.deepEqual(
        refused.body.details.fields.map((f: { path: string }) => f.path),
        ['data.object.id'],
      );
      assert.equal(await db()('stripe_events').where({ id: nameless.id }).first(), undefined, 'nothing stored');
    }
  });

  it('ignores events about objects that are not ours, and expires a checkout back to active', async () => {
    const { workspaceId, session } = await checkedOut();
    const stranger = signedEvent({
      type: 'customer.subscription.updated',
      object: {
        id: 'sub_x',
        object: 'subscription',
        customer: 'cus_not_ours',
        status: 'active',
        metadata: { plan: 'team', workspaceId },
      },
    });
    assert.equal(
      (await sendEvent(stranger)).body.outcome,
      'ignored',
      'a workspace with a customer is reached through its customer only',
    );
    const other = signedEvent({ type: 'charge.refunded', object: { id: 'ch_1', object: 'charge' } });
    assert.equal((await sendEvent(other)).body.outcome, 'ignored');
    const expired = signedEvent({
      type: 'checkout.session.expired',
      object: { id: session.sessionId, object: 'checkout.session' },
    });
    assert.equal((await sendEvent(expired)).body.outcome, 'applied');
    assert.equal((await account(workspaceId)).status, 'active');
    assert.equal(await planOf(workspaceId), 'hobby');
  });
});

describe('billing: Stripe settings', () => {
  it('production with a Stripe key requires the signing secret; development has a fixed one; none means every event is refused', async () => {
    const production = { ...PRODUCTION_SECRETS, NODE_ENV: 'production' };
    // The API checks Stripe's events; the worker sends the meter's: both refuse alike.
    for (const load of [loadApiConfig, loadWorkerConfig]) {
      assert.throws(
        () => load({ ...production, STRIPE_SECRET_KEY: 'sk_live_x' }),
        /STRIPE_WEBHOOK_SECRET is required in production/,
      );
      assert.equal(
        load({ ...production, STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' }).stripe.webhookSecret,
        'whsec_x',
      );
      assert.equal(load({ NODE_ENV: 'development' }).stripe.webhookSecret, DEV_STRIPE_WEBHOOK_SECRET);
      assert.equal(load(production).stripe.webhookSecret, undefined);
      assert.equal(load({ NODE_ENV: 'test' }).stripe.webhookSecret, undefined);
    }
  });
});

describe('billing: checkout from the CLI', () => {
  it('compute billing checkout prints the URL; simulate-event completes it and the plan changes', async () => {
    const me = await cliUser();
    const url = await me.ok('billing', 'checkout', 'payg');
    assert.match(url, /^https:\/\/checkout\.stripe\.com\/\S+\n$/);
    assert.match(await me.ok('billing', 'subscription'), /plan\s+hobby \(pending\)/);
    const sent = await me.ok(
      'billing',
      'simulate-event',
      'checkout.session.completed',
      '--secret',
      testEnv().vars.STRIPE_WEBHOOK_SECRET,
    );
    assert.match(sent, /^evt_simulated_\w+ applied\n$/);
    assert.match(await me.ok('billing', 'subscription'), /plan\s+payg \(active\)/);
    const typo = await me.run('billing', 'checkout', 'pay-g');
    assert.notEqual(typo.code, 0);
    assert.match(typo.stderr, /plan/);
    const wrongSecret = await me.run(
      'billing',
      'simulate-event',
      'checkout.session.completed',
      '--secret',
      'whsec_wrong',
    );
    assert.notEqual(wrongSecret.code, 0);
    assert.match(wrongSecret.stderr, /refused \(403\)/);
  });
});
