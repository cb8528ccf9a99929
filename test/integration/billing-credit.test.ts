import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { expireCredit } from '../../src/billing/credit';
import { setBilling } from '../../src/billing/subscription';
import { waitFor } from '../support/agents';
import { OPERATOR, RESOURCES, type Billed, billedWorkspace, closeNow, ended, finishedJob } from '../support/billing';
import { compute } from '../support/cli';
import { testEnv } from '../support/env';
import { heartbeatInBackground, ok, pollOne, post, resultOf, sleep, submit } from '../support/http';
import { v0ok } from '../support/v0';

// Prepaid credit (CONTRACT §9): a balance that managed usage draws down as it is metered, kept in
// an append-only ledger (grants, draws, returns, expiries, adjustments). A closed period restores
// none of it; an invoice shows the credit its usage drew as a line of its own and bills only the
// rest; Stripe is told only the rest, and never a negative quantity. Money is compared in SQL.

const db = () => testEnv().db;

/** Booleans and figures computed in SQL, for one row. */
async function sql(query: string, bindings: Knex.RawBinding[]): Promise<Record<string, unknown>> {
  const { rows } = await db().raw(query, bindings);
  return rows[0];
}

/** A managed job that runs about `ms`, then reports `usage` as its agent's own figures. */
async function reportedJob(w: Billed, ms: number, usage: Record<string, number>): Promise<string> {
  const { job_id: jobId } = await submit(w.key, { pool: 'managed', timeoutSeconds: 120, resources: RESOURCES });
  const held = await waitFor('the managed agent takes it', () => pollOne(w.agent, 2));
  const beats = heartbeatInBackground(w.agent, [jobId]);
  await sleep(ms);
  await beats.stop();
  await ok('/compute/nodes/result', { ...resultOf(w.agent, held, 0), usage }, w.agent.nodeKey);
  await ended(jobId);
  await waitFor(
    `${jobId}'s reported figures metered`,
    async () => (await db()('usage_ledger').where({ job_id: jobId, meter_window: 'reported' }).first()) !== undefined,
  );
  return jobId;
}

/** The workspace's managed usage (exact), the credit its entries moved, and its balance. */
const figures = (workspaceId: string) =>
  sql(
    `SELECT (SELECT coalesce(sum(amount_usd), 0) FROM usage_ledger WHERE workspace_id = :ws AND pool = 'managed') AS usage,
            (SELECT coalesce(sum(amount_usd), 0) FROM credit_ledger WHERE workspace_id = :ws AND kind IN ('draw', 'return')) AS moved,
            (SELECT credit_usd FROM billing_accounts WHERE workspace_id = :ws) AS balance`.replace(/:ws/g, '?'),
    [workspaceId, workspaceId, workspaceId],
  ) as Promise<{ usage: string; moved: string; balance: string }>;

describe('prepaid credit', () => {
  it('is drawn once: usage draws the balance as it is metered, a closed period restores none, and the invoice shows the credit as its own line and bills only the rest', async function () {
    this.timeout(120_000);
    const w = await billedWorkspace('payg', undefined, '5');
    const first = await finishedJob(w, 1500);
    const one = await figures(w.workspaceId);
    assert.ok(Number(one.usage) > 0.005, `the job cost something: ${one.usage}`);
    // Every cent of the usage came out of the credit, exactly.
    assert.deepEqual(
      await sql('SELECT ?::numeric = -?::numeric AS drawn, ?::numeric = 5 - ?::numeric AS balance', [
        one.moved,
        one.usage,
        one.balance,
        one.usage,
      ]),
      { drawn: true, balance: true },
    );

    await closeNow(w.workspaceId, true);
    // The close restored nothing: the balance is what the usage left.
    assert.deepEqual(
      await sql(
        'SELECT credit_usd = 5 - ?::numeric AS kept, spent_usd = 0 AS rolled FROM billing_accounts WHERE workspace_id = ?',
        [one.usage, w.workspaceId],
      ),
      { kept: true, rolled: true },
    );
    const { items } = await v0ok('GET', '/billing/invoices', { token: w.token });
    const invoice = items[0];
    assert.equal(invoice.totalUsd, 0, 'all of it was paid from credit');
    assert.deepEqual(
      invoice.lines.map((l: { kind: string; jobId: string | null }) => [l.kind, l.jobId]),
      [
        ['usage', first],
        ['credit', null],
      ],
    );
    const creditLine = invoice.lines[1];
    assert.ok(creditLine.amountUsd < 0 && creditLine.attempt === null, JSON.stringify(creditLine));
    assert.equal(
      invoice.lines.reduce((sum: number, l: { amountUsd: number }) => sum + Math.round(l.amountUsd * 100), 0),
      Math.round(invoice.totalUsd * 100),
      'the lines add up to the total',
    );
    assert.deepEqual(
      await sql(
        `SELECT i.credit_usd = ?::numeric AS credit_is_usage, i.exact_usd + i.credit_usd = ?::numeric AS charged_once,
                (SELECT sum(amount_usd) FROM invoice_lines WHERE invoice_id = i.id) = i.total_usd AS lines_add_up
         FROM invoices i WHERE i.id = ?`,
        [one.usage, one.usage, invoice.id],
      ),
      { credit_is_usage: true, charged_once: true, lines_add_up: true },
    );
    assert.equal(invoice.creditUsd, Number(Number(one.usage).toFixed(6)));

    // The next period draws from what is left, and the subscription reads the balance left.
    await finishedJob(w, 500);
    const two = await figures(w.workspaceId);
    assert.deepEqual(
      await sql('SELECT ?::numeric = 5 - ?::numeric AS balance, -?::numeric = ?::numeric AS drawn', [
        two.balance,
        two.usage,
        two.moved,
        two.usage,
      ]),
      { balance: true, drawn: true },
    );
    const sub = await ok('/compute/billing/subscription', {}, w.token);
    assert.equal(
      sub.creditUsd,
      Number(
        (
          await sql('SELECT round(credit_usd, 6)::text AS c FROM billing_accounts WHERE workspace_id = ?', [
            w.workspaceId,
          ])
        ).c,
      ),
    );
  });

  it('that runs out covers what it can: the invoice bills the rest, and Stripe is told only the rest, never a negative quantity', async function () {
    this.timeout(120_000);
    // Team is not prepaid, so its credit bounds nothing and usage may pass it.
    const w = await billedWorkspace('team', undefined, '0.005');
    await db()('billing_accounts')
      .where({ workspace_id: w.workspaceId })
      .update({ stripe_customer_id: `cus_credit_${Date.now()}` });
    await finishedJob(w, 2500);
    const f = await figures(w.workspaceId);
    assert.ok(Number(f.usage) > 0.01, f.usage);
    assert.deepEqual(await sql('SELECT ?::numeric = 0 AS spent, ?::numeric = -0.005 AS drawn', [f.balance, f.moved]), {
      spent: true,
      drawn: true,
    });
    // Each entry's meter event is its part the credit did not cover; together, the usage less the credit.
    const told = await sql(
      `SELECT coalesce(sum(e.value_microusd), 0) AS sent, count(u.id) AS entries, count(*) FILTER (WHERE e.value_microusd <= 0) AS not_positive
       FROM usage_ledger u LEFT JOIN stripe_meter_events e ON e.ledger_id = u.id WHERE u.workspace_id = ? AND u.pool = 'managed'`,
      [w.workspaceId],
    );
    assert.equal(Number(told.not_positive), 0);
    assert.deepEqual(
      await sql('SELECT abs(?::numeric - (?::numeric - 0.005) * 1000000) <= ?::int AS rest', [
        String(told.sent),
        f.usage,
        String(told.entries),
      ]),
      { rest: true },
      JSON.stringify({ told, f }),
    );

    await closeNow(w.workspaceId, true);
    assert.deepEqual(
      await sql(
        `SELECT credit_usd = 0.005 AS credit, total_usd = round(?::numeric - 0.005, 2) AS rest, exact_usd + credit_usd = ?::numeric AS charged_once
         FROM invoices WHERE workspace_id = ?`,
        [f.usage, f.usage, w.workspaceId],
      ),
      { credit: true, rest: true, charged_once: true },
    );
  });

  it('comes back when a correction lowers its attempt; a correction the credit did not absorb is settled on the invoice as a negative Stripe invoice item', async function () {
    this.timeout(150_000);
    // The agent's own figures say the attempt used nothing: what it drew comes back, exactly.
    const prepaid = await billedWorkspace('payg', undefined, '5');
    await reportedJob(prepaid, 1500, { cpuSeconds: 0, gpuSeconds: 0, gbSeconds: 0 });
    const back = await figures(prepaid.workspaceId);
    assert.deepEqual(
      await sql('SELECT ?::numeric = 0 AS usage, ?::numeric = 0 AS moved, ?::numeric = 5 AS whole', [
        back.usage,
        back.moved,
        back.balance,
      ]),
      { usage: true, moved: true, whole: true },
    );
    assert.ok(
      (await db()('credit_ledger').where({ workspace_id: prepaid.workspaceId, kind: 'return' }).first()) !== undefined,
      'given back by a return entry',
    );

    // Without credit, Stripe was told the positive entry; the negative one waits for the invoice.
    const w = await billedWorkspace('team');
    await db()('billing_accounts')
      .where({ workspace_id: w.workspaceId })
      .update({ stripe_customer_id: `cus_corrected_${Date.now()}` });
    await reportedJob(w, 2500, { cpuSeconds: 0, gpuSeconds: 0, gbSeconds: 0 });
    const held = await sql(
      `SELECT (SELECT count(*) FROM stripe_meter_events WHERE workspace_id = :ws AND value_microusd <= 0) AS negative_events,
              (SELECT coalesce(sum(value_microusd), 0) FROM stripe_usage_corrections WHERE workspace_id = :ws) AS held,
              (SELECT coalesce(sum(value_microusd), 0) FROM stripe_meter_events WHERE workspace_id = :ws) AS sent`.replace(
        /:ws/g,
        '?',
      ),
      [w.workspaceId, w.workspaceId, w.workspaceId],
    );
    assert.equal(Number(held.negative_events), 0, 'no negative meter event');
    assert.ok(Number(held.held) <= -10_000, `a correction of at least a cent is held: ${JSON.stringify(held)}`);
    // Each entry is told to the micro-dollar: two roundings apart at most.
    assert.ok(
      Math.abs(Number(held.sent) + Number(held.held)) <= 1,
      `the usage nets to nothing, as the agent said: ${JSON.stringify(held)}`,
    );

    await closeNow(w.workspaceId, true);
    const invoice = await db()('invoices').where({ workspace_id: w.workspaceId }).first('id', 'total_usd');
    assert.equal(invoice.total_usd, '0.00');
    const settled = await waitFor(
      'the correction settled on Stripe',
      async () =>
        (await db()('stripe_invoice_credits')
          .where({ invoice_id: invoice.id })
          .whereNotNull('delivered_at')
          .first()) as Record<string, string> | undefined,
      30_000,
    );
    assert.equal(Number(settled.amount_cents), Math.round(Number(held.held) / 10_000));
    assert.match(settled.stripe_invoice_item_id, /^ii_/);
  });

  it('expires: draws take the grant that expires soonest, and at its expiry what is left of it is gone, once; the ledger is append-only', async function () {
    this.timeout(90_000);
    const w = await billedWorkspace('payg', undefined, '0');
    const expiresAt = new Date(Date.now() + 4000);
    await setBilling(db(), { workspaceId: w.workspaceId, grant: { amountUsd: '2' }, actor: OPERATOR });
    await setBilling(db(), { workspaceId: w.workspaceId, grant: { amountUsd: '1', expiresAt }, actor: OPERATOR });
    const [lasting, expiring] = await db()('credit_ledger')
      .where({ workspace_id: w.workspaceId, kind: 'grant' })
      .orderBy('id')
      .pluck('id');
    await finishedJob(w, 500);
    const used = await figures(w.workspaceId);
    const draws = await db()('credit_ledger')
      .where({ workspace_id: w.workspaceId, kind: 'draw' })
      .distinct('grant_id')
      .pluck('grant_id');
    assert.deepEqual(draws, [expiring], 'the expiring grant pays first');

    await sleep(expiresAt.getTime() - Date.now() + 100);
    await expireCredit(db(), new Date());
    assert.equal(await expireCredit(db(), new Date()), 0, 'an expiry happens once');
    assert.deepEqual(
      await sql(
        `SELECT (SELECT amount_usd FROM credit_ledger WHERE grant_id = ? AND kind = 'expiry') = -(1 + ?::numeric) AS left_expired,
                (SELECT credit_usd FROM billing_accounts WHERE workspace_id = ?) = 2 AS lasting_whole,
                (SELECT remaining_usd FROM credit_grants WHERE id = ?) = 2 AS untouched`,
        [expiring, used.moved, w.workspaceId, lasting],
      ),
      { left_expired: true, lasting_whole: true, untouched: true },
    );

    for (const change of [
      'UPDATE credit_ledger SET amount_usd = 0 WHERE id = ?',
      'DELETE FROM credit_ledger WHERE id = ?',
    ]) {
      await assert.rejects(db().raw(change, [expiring]), /append-only/);
    }
    // Setting a balance lower takes it back as an adjustment; a grant's expiry must be to come.
    assert.equal(
      (await compute(['admin', 'billing', 'set', '--workspace', w.workspaceId, '--credit-usd', '1.5'])).code,
      0,
    );
    assert.deepEqual(
      await sql(
        `SELECT sum(amount_usd) = -0.5 AS taken FROM credit_ledger WHERE workspace_id = ? AND kind = 'adjustment'`,
        [w.workspaceId],
      ),
      { taken: true },
    );
    const late = await compute([
      'admin',
      'billing',
      'set',
      '--workspace',
      w.workspaceId,
      '--grant-usd',
      '1',
      '--grant-expires',
      '2020-01-01T00:00:00Z',
    ]);
    assert.notEqual(late.code, 0);
    assert.match(late.stderr, /has passed/);
    const granted = await compute(['admin', 'billing', 'set', '--workspace', w.workspaceId, '--grant-usd', '0.25']);
    assert.equal(granted.code, 0, granted.stderr);
    assert.match(granted.stdout, /with 1\.75 USD of prepaid credit/);
    assert.equal((await post('/compute/billing/subscription', {}, w.token)).body.payload.creditUsd, 1.75);
  });
});
