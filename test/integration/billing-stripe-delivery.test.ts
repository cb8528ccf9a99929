import assert from 'node:assert/strict';
import { createApiKey } from '../../src/auth/api-keys';
import { openDueInvoices } from '../../src/billing/invoices';
import { closePeriods } from '../../src/billing/periods';
import { setBilling } from '../../src/billing/subscription';
import { freePort } from '../../src/stack/ports';
import { waitFor } from '../support/agents';
import { spawnApi } from '../support/api-process';
import { login } from '../support/auth';
import { testEnv, OUR_SESSIONS } from '../support/env';
import { heartbeatInBackground, ok, pollOne, resultOf, sleep, submit } from '../support/http';
import { newRegion, registerManaged } from '../support/managed-pool';
import { periods } from '../support/billing';
import { sendEvent, signedEvent } from '../support/stripe';

// What must survive failures on the Stripe path: an API killed between storing an event and
// applying it, and stripe-mock stopped while meter events are owed.

const db = () => testEnv().db;
const OPERATOR = { type: 'system', id: 'operator' } as const;
const URLS = { successUrl: 'https://app.example/done', cancelUrl: 'https://app.example/' };

/**
 * A personal workspace through checkout to `plan` (a Stripe customer), with `creditUsd` of prepaid
 * credit, a key and a region of its own.
 */
async function customerOn(plan: 'payg' | 'team', creditUsd: string) {
  const user = await login();
  const workspaceId = user.user.workspaceId as string;
  const session = await ok('/compute/billing/checkout/create', { plan, ...URLS }, user.token);
  const customer = (await db()('billing_accounts').where({ workspace_id: workspaceId }).first('stripe_customer_id'))
    .stripe_customer_id;
  const done = signedEvent({
    type: 'checkout.session.completed',
    object: { id: session.sessionId, object: 'checkout.session', customer, client_reference_id: workspaceId },
  });
  assert.equal((await sendEvent(done)).body.outcome, 'applied');
  await setBilling(db(), { workspaceId, creditUsd, actor: OPERATOR });
  const region = newRegion();
  await db()('workspaces').where({ id: workspaceId }).update({ default_region: region });
  const { key } = await createApiKey(db(), { workspaceId, name: 'stripe', kind: 'user' });
  return { workspaceId, key, region, customer };
}

/** A managed job run for about `ms` on a managed agent of the region. */
async function runManaged(
  w: { key: string; region: string },
  ms: number,
  usage?: { cpuSeconds: number; gpuSeconds: number; gbSeconds: number },
) {
  const agent = await registerManaged(undefined, w.region);
  const sub = await submit(w.key, { pool: 'managed', timeoutSeconds: 60, resources: { cpu: 1, memoryMb: 1024 } });
  const held = (await pollOne(agent, 5))!;
  assert.equal(held.job_id, sub.job_id);
  const beat = heartbeatInBackground(agent, [held.job_id]);
  await sleep(ms);
  await beat.stop();
  await ok('/compute/nodes/result', { ...resultOf(agent, held, 0), ...(usage && { usage }) }, agent.nodeKey);
  return sub.job_id as string;
}

/**
 * Per workspace, over its priced managed entries (none drew credit: the workspace has none): the
 * positive ones each owe a meter event; the negative ones (corrections) owe none and are held for
 * the invoice; and whether the amounts agree to the micro-dollar.
 */
async function owed(workspaceId: string) {
  const { rows } = await db().raw(
    `SELECT count(*) FILTER (WHERE u.micro > 0)::int AS entries,
            count(e.ledger_id)::int AS owed,
            count(e.delivered_at)::int AS delivered,
            coalesce(max(e.attempts), 0)::int AS most_attempts,
            count(DISTINCT e.identifier)::int AS identifiers,
            coalesce(sum(e.value_microusd), 0)::text AS sent,
            coalesce(sum(u.micro) FILTER (WHERE u.micro > 0), 0)::text AS priced,
            count(*) FILTER (WHERE u.micro < 0)::int AS corrections,
            count(c.ledger_id)::int AS held,
            coalesce(sum(c.value_microusd), 0)::text AS held_usd,
            coalesce(sum(u.micro) FILTER (WHERE u.micro < 0), 0)::text AS corrected,
            count(*) FILTER (WHERE e.value_microusd <= 0)::int AS not_positive
     FROM (SELECT id, round(amount_usd * 1000000) AS micro FROM usage_ledger WHERE workspace_id = ? AND pool = 'managed') u
     LEFT JOIN stripe_meter_events e ON e.ledger_id = u.id LEFT JOIN stripe_usage_corrections c ON c.ledger_id = u.id
     WHERE u.micro <> 0`,
    [workspaceId],
  );
  return rows[0] as {
    entries: number;
    owed: number;
    delivered: number;
    most_attempts: number;
    identifiers: number;
    sent: string;
    priced: string;
    corrections: number;
    held: number;
    held_usd: string;
    corrected: string;
    not_positive: number;
  };
}

describe('billing: Stripe through failures', () => {
  it('an API killed between storing an event and applying it leaves neither; the resend applies once', async function () {
    this.timeout(90_000);
    const user = await login();
    const workspaceId = user.user.workspaceId as string;
    const session = await ok('/compute/billing/checkout/create', { plan: 'team', ...URLS }, user.token);
    const ev = signedEvent({
      type: 'checkout.session.completed',
      object: { id: session.sessionId, object: 'checkout.session', client_reference_id: workspaceId },
    });
    const port = await freePort();
    const api = await spawnApi(port, {});
    const hold = await db().transaction();
    try {
      // The account is held, so the API's transaction stops after storing the event, before the plan.
      await hold.raw('SELECT 1 FROM billing_accounts WHERE workspace_id = ? FOR UPDATE', [workspaceId]);
      const sent = sendEvent(ev, `http://127.0.0.1:${port}`).catch(() => 'cut off');
      const blocked = await waitFor(
        'the event to wait on the account',
        async () => {
          const { rows } = await db().raw(
            `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND backend_xid IS NOT NULL AND query ILIKE '%billing_accounts%' AND pid <> pg_backend_pid() AND ${OUR_SESSIONS}`,
          );
          return rows[0]?.pid as number | undefined;
        },
        15_000,
      );
      const stored = await db().raw(
        `SELECT count(*)::int AS n FROM pg_locks WHERE pid = ? AND locktype = 'transactionid' AND mode = 'ExclusiveLock' AND granted`,
        [blocked],
      );
      assert.ok(stored.rows[0].n > 0, 'the waiting transaction has written (the event row)');
      process.kill(-api.pid, 'SIGKILL');
      assert.equal(await sent, 'cut off');
      await hold.rollback();
      await waitFor(
        "the killed API's session to end",
        async () => (await db().raw('SELECT 1 FROM pg_stat_activity WHERE pid = ?', [blocked])).rows.length === 0,
        15_000,
      );
    } finally {
      if (!hold.isCompleted()) await hold.rollback();
      await api.stop().catch(() => undefined);
    }
    assert.equal(
      (await db()('stripe_events').where({ id: ev.id }).first()) ?? null,
      null,
      'no event row without its effect',
    );
    assert.equal((await db()('workspaces').where({ id: workspaceId }).first('plan')).plan, 'hobby');
    // Stripe resends what was not acknowledged.
    assert.equal((await sendEvent(ev)).body.outcome, 'applied');
    assert.equal((await sendEvent(ev)).body.outcome, 'duplicate');
    assert.equal((await db()('workspaces').where({ id: workspaceId }).first('plan')).plan, 'team');
  });

  it('reports each priced managed entry to Stripe once, never as a negative event, and an outage of Stripe delays events without losing one', async function () {
    this.timeout(120_000);
    const w = await customerOn('team', '0');
    await runManaged(w, 2500);
    const before = await waitFor(
      'the meter events delivered',
      async () => {
        const o = await owed(w.workspaceId);
        return o.entries > 0 && o.delivered === o.entries ? o : undefined;
      },
      20_000,
    );
    assert.equal(before.owed, before.entries, 'every priced managed entry is owed');
    assert.equal(before.identifiers, before.entries, 'one identifier per ledger key');
    assert.equal(before.sent, before.priced);

    // The stack's own mock: this file runs in the process that started the stack (the shared lane).
    const stripeMock = testEnv().stack!.stripeMock!;
    await stripeMock.stop();
    try {
      // The agent reports less than the estimate: a negative correcting entry, held for the invoice.
      await runManaged(w, 2500, { cpuSeconds: 0.5, gpuSeconds: 0, gbSeconds: 0.5 });
      await waitFor(
        'a failed attempt while Stripe is down',
        async () => {
          const { rows } = await db().raw(
            `SELECT 1 FROM stripe_meter_events WHERE workspace_id = ? AND delivered_at IS NULL AND attempts > 0 AND last_error IS NOT NULL`,
            [w.workspaceId],
          );
          return rows.length > 0;
        },
        20_000,
      );
      const during = await owed(w.workspaceId);
      assert.ok(during.delivered < during.owed, `events wait while Stripe is down: ${JSON.stringify(during)}`);
    } finally {
      await stripeMock.restart();
    }
    const after = await waitFor(
      'every meter event delivered after the outage',
      async () => {
        const o = await owed(w.workspaceId);
        return o.delivered === o.entries ? o : undefined;
      },
      30_000,
    );
    assert.ok(after.entries > before.entries);
    assert.equal(after.owed, after.entries, 'none lost');
    assert.equal(after.identifiers, after.entries, 'none sent as two events');
    assert.equal(after.sent, after.priced, 'what Stripe was told adds up to the ledger, to the micro-dollar');
    assert.ok(after.most_attempts > 1, 'retried after the outage');
    // Stripe's meter takes no negative events: the correction waits for the invoice (billing-credit.test.ts settles one).
    assert.equal(after.not_positive, 0, 'no event of zero or less');
    assert.ok(after.corrections >= 1, JSON.stringify(after));
    assert.deepEqual(
      [after.held, after.held_usd],
      [after.corrections, after.corrected],
      'every correction held, to the micro-dollar',
    );
  });

  it('marks our invoice paid on invoice.paid, and an account past due active again', async function () {
    this.timeout(60_000);
    const w = await customerOn('payg', '10');
    const jobId = await runManaged(w, 1500);
    await waitFor(
      'the attempt metered',
      async () => (await db()('usage_ledger').where({ job_id: jobId, meter_window: 'end' }).first()) !== undefined,
      10_000,
    );
    await closePeriods(db(), { ...periods(), at: new Date(), workspaceId: w.workspaceId, force: true });
    await openDueInvoices(db(), new Date(), { workspaceId: w.workspaceId, skipGrace: true });
    const invoice = await db()('invoices').where({ workspace_id: w.workspaceId }).first('id', 'status', 'period_end');
    assert.equal(invoice.status, 'open');
    const now = Math.floor(Date.now() / 1000);
    const failed = signedEvent({
      type: 'invoice.payment_failed',
      created: now + 1,
      object: { id: 'in_fail', object: 'invoice', customer: w.customer },
    });
    assert.equal((await sendEvent(failed)).body.outcome, 'applied');
    assert.equal(
      (await db()('billing_accounts').where({ workspace_id: w.workspaceId }).first('status')).status,
      'past_due',
    );
    // Stripe's invoice names ours in its metadata (ours by period end would do as well).
    const paid = signedEvent({
      type: 'invoice.paid',
      created: now + 2,
      object: { id: 'in_stripe_1', object: 'invoice', customer: w.customer, metadata: { invoiceId: invoice.id } },
    });
    assert.equal((await sendEvent(paid)).body.outcome, 'applied');
    const after = await db()('invoices').where({ id: invoice.id }).first('status', 'stripe_invoice_id', 'paid_at');
    assert.equal(after.status, 'paid');
    assert.equal(after.stripe_invoice_id, 'in_stripe_1');
    assert.ok(after.paid_at);
    assert.equal(
      (await db()('billing_accounts').where({ workspace_id: w.workspaceId }).first('status')).status,
      'active',
    );
    const again = signedEvent({
      type: 'invoice.paid',
      created: now + 3,
      object: { id: 'in_stripe_1', object: 'invoice', customer: w.customer },
    });
    assert.equal((await sendEvent(again)).body.outcome, 'ignored', 'a paid invoice stays paid; nothing else changes');
  });
});
