import assert from 'node:assert/strict';
import { markInvoicePaid, openDueInvoices } from '../../src/billing/invoices';
import { meterTick } from '../../src/billing/meter';
import { closePeriods } from '../../src/billing/periods';
import { setBilling } from '../../src/billing/subscription';
import {
  OPERATOR,
  billedWorkspace,
  closeNow,
  ended,
  finishedJob,
  invoicesOf,
  periods,
  reportResult,
  runningJob,
  withMeterPaused,
} from '../support/billing';
import { waitFor } from '../support/agents';
import { cliUser, compute } from '../support/cli';
import { testEnv } from '../support/env';
import { heartbeatInBackground, pollOne, registerNode, sleep, submit } from '../support/http';
import { v0, v0ok } from '../support/v0';

// Invoices (CONTRACT §9): a period closed while managed jobs run puts every ledger entry of them in
// exactly one invoice, the lines adding up to the total exactly, and what is recorded for a
// period after its invoice opened goes to the next one as late lines. Money is compared in SQL.

const db = () => testEnv().db;
const tick = (at: Date) => meterTick(db(), at, { cancelGraceSeconds: 1, periods: periods() });

/** A tick of `window`, run again until it has metered each of `jobIds` (a tick skips an attempt a heartbeat holds just then). */
async function tickOver(window: Date, jobIds: string[]) {
  await waitFor(`a tick of ${window.toISOString()} over ${jobIds.length} attempts`, async () => {
    await tick(window);
    const [{ n }] = await db()('usage_ledger')
      .whereIn('job_id', jobIds)
      .where({ meter_window: `tick:${window.toISOString()}` })
      .count<{ n: string }[]>('* as n');
    return Number(n) === jobIds.length;
  });
}

/** Per invoice of the workspace, oldest first: whether its figures hold, in SQL's numerics. */
async function figuresOf(workspaceId: string) {
  const { rows } = await db().raw(
    `SELECT i.id, i.status, i.total_usd > 0 AS charged,
       i.total_usd = (SELECT coalesce(sum(l.amount_usd), 0) FROM invoice_lines l WHERE l.invoice_id = i.id) AS lines_add_up,
       i.total_usd = round(i.exact_usd, 2) AS total_rounded, i.rounding_usd = i.total_usd - i.exact_usd AS rounding_stated,
       i.exact_usd = (SELECT coalesce(sum(u.amount_usd), 0) FROM invoice_entries e JOIN usage_ledger u ON u.id = e.ledger_id WHERE e.invoice_id = i.id) AS exact_is_entries,
       coalesce((SELECT bool_and(abs(l.amount_usd - l.exact_usd) < 0.01) FROM invoice_lines l WHERE l.invoice_id = i.id), true) AS lines_within_a_cent
     FROM invoices i WHERE i.workspace_id = ? ORDER BY i.period_start`,
    [workspaceId],
  );
  return rows as Array<Record<string, string | boolean>>;
}

describe('invoices', () => {
  it('a period closed while managed jobs run: every entry in exactly one invoice, lines adding up, late entries in the next period', async function () {
    this.timeout(150_000);
    const w = await billedWorkspace('team');
    const node = await registerNode(w.key);
    await withMeterPaused('invoices: the test drives the meter', async () => {
      // A ends before the close; B and C run across it; a self job runs beside them (never invoiced).
      const a = await finishedJob(w, 1000);
      const [b, c] = [await runningJob(w), await runningJob(w)];
      await submit(w.key, { timeoutSeconds: 120 });
      const selfHeld = (await pollOne(node, 5))!;
      const selfBeats = heartbeatInBackground(node, [selfHeld.job_id]);
      const label = (jobId: string) => ({ [a]: 'A', [b.jobId]: 'B', [c.jobId]: 'C' })[jobId] ?? jobId;
      await sleep(1500);
      await tickOver(new Date(), [b.jobId, c.jobId]);
      await sleep(1000);
      // The window of a tick due before the close, which will only run after it.
      const lateWindow = new Date();
      await sleep(300);

      // The operator closes the period and opens its invoice at once, skipping the grace.
      const closed = await compute(['admin', 'billing', 'close-period', '--workspace', w.workspaceId, '--open']);
      assert.equal(closed.code, 0, closed.stderr);
      assert.match(
        closed.stdout,
        /^inv_\w+ \(open\) for \S+ to \S+\ntotal [\d.]+ USD in 3 lines \(rounding -?[\d.]+ USD\)\n$/,
      );
      // The late tick (a retried one): B's and C's entries up to its window belong to the closed period.
      await tickOver(lateWindow, [b.jobId, c.jobId]);
      await b.finish();

      // A second close, left a draft: a tick due before it that runs within the grace is still its own.
      await sleep(1000);
      const onTime = new Date();
      await sleep(300);
      const second = await closePeriods(db(), {
        ...periods(),
        at: new Date(),
        workspaceId: w.workspaceId,
        force: true,
      });
      assert.deepEqual(second, { periods: 1, invoices: 1 });
      await tickOver(onTime, [c.jobId]);
      const draft = (await invoicesOf(w.workspaceId))[1];
      assert.equal(draft.status, 'draft');
      // The meter's tick after the grace opens it.
      await sleep(draft.closes_at.getTime() - Date.now() + 100);
      const opening = await tick(new Date());
      assert.ok(opening.invoicesOpened >= 1);

      // C ends after both closes; a third close takes its remainder.
      await c.finish();
      await selfBeats.stop();
      await reportResult(node, selfHeld);
      await ended(selfHeld.job_id);
      await closeNow(w.workspaceId, true);

      const invoices = await invoicesOf(w.workspaceId);
      assert.deepEqual(
        invoices.map((i) => i.status),
        ['open', 'open', 'open'],
      );
      const { rows: lines } = await db().raw(
        `SELECT i.period_start, l.job_id, l.late FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
         WHERE i.workspace_id = ? ORDER BY i.period_start, l.position`,
        [w.workspaceId],
      );
      const per = invoices.map((i) =>
        lines
          .filter((l: { period_start: Date }) => l.period_start.getTime() === i.period_start.getTime())
          .map((l: { job_id: string; late: boolean }) => `${label(l.job_id)}${l.late ? ' late' : ''}`)
          .sort(),
      );
      assert.deepEqual(per, [['A', 'B', 'C'], ['B', 'B late', 'C', 'C late'], ['C']]);

      // Every managed entry of the workspace in exactly one invoice (the key holds it at most once), no self entry in any.
      const { rows: coverage } = await db().raw(
        `SELECT count(*) FILTER (WHERE u.pool = 'managed')::int AS managed, count(*) FILTER (WHERE u.pool = 'managed' AND e.ledger_id IS NULL)::int AS uninvoiced,
                count(*) FILTER (WHERE u.pool = 'self')::int AS self, count(*) FILTER (WHERE u.pool = 'self' AND e.ledger_id IS NOT NULL)::int AS self_invoiced,
                count(*) FILTER (WHERE e.ledger_id IS NOT NULL AND i.workspace_id <> u.workspace_id)::int AS elsewhere
         FROM usage_ledger u LEFT JOIN invoice_entries e ON e.ledger_id = u.id LEFT JOIN invoices i ON i.id = e.invoice_id
         WHERE u.workspace_id = ?`,
        [w.workspaceId],
      );
      // At least what the test itself waited for: A's end; B's two ticks and end; C's three ticks
      // and end; the self job's end. The meter's opening tick, and the ticks over the self job, can
      // skip an attempt a heartbeat holds just then, so they may add entries or not.
      assert.ok(coverage[0].managed >= 8 && coverage[0].self >= 1, JSON.stringify(coverage[0]));
      assert.deepEqual(
        { ...coverage[0], managed: 0, self: 0 },
        { managed: 0, uninvoiced: 0, self: 0, self_invoiced: 0, elsewhere: 0 },
      );

      // The late entries are exactly the late tick's, in the invoice after their period's; the on-time one is in its own.
      const { rows: late } = await db().raw(
        `SELECT u.job_id, u.to_at = ? AS late_window FROM invoice_entries e JOIN usage_ledger u ON u.id = e.ledger_id JOIN invoices i ON i.id = e.invoice_id
         WHERE i.workspace_id = ? AND u.to_at < i.period_start ORDER BY u.job_id`,
        [lateWindow, w.workspaceId],
      );
      assert.deepEqual(
        late.map((r: { job_id: string; late_window: boolean }) => [label(r.job_id), r.late_window]),
        [
          ['B', true],
          ['C', true],
        ],
      );
      const { rows: onTimeEntry } = await db().raw(
        `SELECT e.invoice_id FROM usage_ledger u JOIN invoice_entries e ON e.ledger_id = u.id WHERE u.job_id = ? AND u.meter_window = ?`,
        [c.jobId, `tick:${onTime.toISOString()}`],
      );
      assert.deepEqual(
        onTimeEntry.map((r: { invoice_id: string }) => r.invoice_id),
        [invoices[1].id],
      );

      for (const f of await figuresOf(w.workspaceId)) {
        assert.deepEqual(f, {
          ...f,
          lines_add_up: true,
          total_rounded: true,
          rounding_stated: true,
          exact_is_entries: true,
          lines_within_a_cent: true,
        });
      }
      assert.deepEqual(
        (await figuresOf(w.workspaceId)).map((f) => f.charged),
        [true, true, true],
      );
    });
  });

  it('GET /v0/billing/invoices and compute billing invoices: newest first, paged, a draft as it would open; 403 billing.not_available off payg and team', async function () {
    this.timeout(90_000);
    const me = await cliUser();
    const w = await billedWorkspace('team', { token: me.session.token, workspaceId: me.session.workspaceId });
    const first = await finishedJob(w);
    await closeNow(w.workspaceId, true);
    const second = await finishedJob(w);
    await closeNow(w.workspaceId, false);

    const { items, nextPageToken } = await v0ok('GET', '/billing/invoices', { token: w.token });
    assert.equal(nextPageToken, null);
    assert.deepEqual(
      items.map((i: { status: string }) => i.status),
      ['draft', 'open'],
    );
    assert.deepEqual(Object.keys(items[0]).sort(), [
      'creditUsd',
      'id',
      'lines',
      'periodEnd',
      'periodStart',
      'roundingUsd',
      'status',
      'totalUsd',
    ]);
    assert.deepEqual(
      items.map((i: { lines: Array<{ jobId: string }> }) => i.lines.map((l) => l.jobId)),
      [[second], [first]],
    );
    assert.deepEqual(Object.keys(items[1].lines[0]).sort(), [
      'amountUsd',
      'attempt',
      'cpuSeconds',
      'gbSeconds',
      'gpuSeconds',
      'jobId',
      'kind',
      'late',
    ]);
    assert.equal(items[0].periodStart, items[1].periodEnd, 'one period after the other');
    // The open one as stored, to the digit; the draft's preview is what it holds once it opens.
    const { rows } = await db().raw(
      `SELECT total_usd = CAST(? AS numeric) AS total, round(rounding_usd, 12) = CAST(? AS numeric) AS rounding,
              (SELECT amount_usd FROM invoice_lines WHERE invoice_id = invoices.id) = CAST(? AS numeric) AS line
       FROM invoices WHERE id = ?`,
      [String(items[1].totalUsd), String(items[1].roundingUsd), String(items[1].lines[0].amountUsd), items[1].id],
    );
    assert.deepEqual(rows[0], { total: true, rounding: true, line: true });
    await openDueInvoices(db(), new Date(), { workspaceId: w.workspaceId, skipGrace: true });
    const opened = (await v0ok('GET', '/billing/invoices', { token: w.token })).items[0];
    assert.deepEqual(opened, { ...items[0], status: 'open' });

    // Paged by pageSize, newest first.
    const p1 = await v0ok('GET', '/billing/invoices?pageSize=1', { token: w.token });
    assert.deepEqual([p1.items.map((i: { id: string }) => i.id), typeof p1.nextPageToken], [[items[0].id], 'string']);
    const p2 = await v0ok('GET', `/billing/invoices?pageSize=1&pageToken=${p1.nextPageToken}`, { token: w.token });
    assert.deepEqual([p2.items.map((i: { id: string }) => i.id), p2.nextPageToken], [[items[1].id], null]);
    for (const bad of ['pageSize=0', 'pageSize=201', 'pageToken=bm9wZQ']) {
      const r = await v0('GET', `/billing/invoices?${bad}`, { token: w.token });
      assert.deepEqual([r.status, r.body.code], [400, 'request.invalid'], bad);
    }

    // The CLI: a table for people, the records with --json.
    const table = await me.ok('billing', 'invoices');
    assert.match(
      table,
      new RegExp(
        `^INVOICE\\s+PERIOD\\s+STATUS\\s+CREDIT USD\\s+TOTAL USD\\s+LINES\\n${items[0].id}\\s+\\S+ to \\S+\\s+open\\s+0\\s+\\d+\\.\\d\\d\\s+1\\n${items[1].id}\\s`,
      ),
    );
    assert.deepEqual(JSON.parse(await me.ok('billing', 'invoices', '--json')), [opened, items[1]]);

    for (const plan of ['hobby', 'enterprise'] as const) {
      await setBilling(db(), { workspaceId: w.workspaceId, plan, actor: OPERATOR });
      const refused = await v0('GET', '/billing/invoices', { token: w.token });
      assert.deepEqual(
        [refused.status, refused.body.code, refused.body.details?.plan],
        [403, 'billing.not_available', plan],
      );
    }
    const cli = await me.run('billing', 'invoices');
    assert.notEqual(cli.code, 0);
    assert.match(cli.stderr, /enterprise plan has no invoices/);
    // The operator's close on such a plan closes the period and says there is no invoice.
    const closed = await compute(['admin', 'billing', 'close-period', '--workspace', w.workspaceId]);
    assert.deepEqual(
      [closed.code, closed.stdout],
      [0, `${w.workspaceId}'s period is closed; its enterprise plan has no invoices\n`],
    );
    const unknown = await compute(['admin', 'billing', 'close-period', '--workspace', 'ws_nope']);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /workspace ws_nope not found/);
  });

  it('an open invoice never changes: its lines, entries and figures are refused by the database; only open → paid', async function () {
    this.timeout(60_000);
    const w = await billedWorkspace('team');
    await finishedJob(w);
    await closeNow(w.workspaceId, true);
    const [inv] = await invoicesOf(w.workspaceId);
    const before = await db()('invoice_lines')
      .where({ invoice_id: inv.id })
      .select(db().raw('amount_usd::text AS amount'));
    const refusals = [
      [
        'UPDATE invoice_lines SET amount_usd = amount_usd + 1 WHERE invoice_id = ?',
        /no longer a draft: its invoice_lines never change/,
      ],
      [
        "INSERT INTO invoice_lines (invoice_id, position, job_id, attempt, late, cpu_seconds, gpu_seconds, gb_seconds, exact_usd, amount_usd) VALUES (?, 99, 'job_x', 1, false, 0, 0, 0, 1, 1)",
        /no longer a draft/,
      ],
      ['DELETE FROM invoice_entries WHERE invoice_id = ?', /no longer a draft: its invoice_entries never change/],
      [
        'UPDATE invoices SET total_usd = total_usd + 0.01, rounding_usd = rounding_usd + 0.01 WHERE id = ?',
        /only open → paid/,
      ],
      ["UPDATE invoices SET period_end = period_end + interval '1 day' WHERE id = ?", /only open → paid/],
      ["UPDATE invoices SET status = 'draft' WHERE id = ?", /only open → paid/],
      ['DELETE FROM invoices WHERE id = ?', /never deleted/],
    ] as const;
    for (const [sql, message] of refusals) await assert.rejects(db().raw(sql, [inv.id]), message, sql);
    assert.deepEqual(
      await db()('invoice_lines').where({ invoice_id: inv.id }).select(db().raw('amount_usd::text AS amount')),
      before,
    );

    // Stripe's invoice.paid: found by the period it ends, it becomes paid once and learns its Stripe ID.
    assert.equal(
      await markInvoicePaid(db(), {
        workspaceId: w.workspaceId,
        stripeInvoiceId: 'in_test_paid',
        periodEnd: inv.period_end,
      }),
      true,
    );
    assert.equal(
      await markInvoicePaid(db(), { workspaceId: w.workspaceId, stripeInvoiceId: 'in_test_paid' }),
      false,
      'already paid',
    );
    const paid = await db()('invoices').where({ id: inv.id }).first('status', 'stripe_invoice_id', 'paid_at');
    assert.deepEqual(
      [paid.status, paid.stripe_invoice_id, paid.paid_at instanceof Date],
      ['paid', 'in_test_paid', true],
    );
    await assert.rejects(
      db().raw("UPDATE invoices SET status = 'open', paid_at = NULL WHERE id = ?", [inv.id]),
      /only open → paid/,
    );
  });
});
