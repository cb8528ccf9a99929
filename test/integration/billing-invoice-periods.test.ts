import assert from 'node:assert/strict';
import pino from 'pino';
import { readInvoices } from '../../src/billing/invoice-reads';
import { openDueInvoices } from '../../src/billing/invoices';
import { ensurePeriodSchedule, periodScheduleId, periodScheduleSpec } from '../../src/billing/period-schedule';
import { closePeriods } from '../../src/billing/periods';
import { newId } from '../../src/shared/ids';
import { billedWorkspace, finishedJob, invoicesOf, periods, withMeterPaused, withTemporal } from '../support/billing';
import { sleep } from '../support/http';
import { waitFor } from '../support/agents';
import { testEnv } from '../support/env';

// Billing periods (CONTRACT §9): the schedule that closes them, closing and opening once however
// many closers race, and the rounding: only at the line, the difference carried to the next line.

const db = () => testEnv().db;

/** The workspace's period made to end now (after whatever it recorded so far); its end. */
async function periodEnded(workspaceId: string): Promise<Date> {
  const { rows } = await db().raw(
    `UPDATE billing_accounts SET current_period_end = now() WHERE workspace_id = ? RETURNING current_period_end`,
    [workspaceId],
  );
  return rows[0].current_period_end;
}

/** A finished managed job of the workspace, as rows, with ledger entries of these amounts recorded at these times (SQL). */
async function jobWithEntries(
  w: { workspaceId: string; region: string },
  entries: Array<[amount: string, toAt: string]>,
): Promise<string> {
  const id = newId('job');
  await db()('jobs').insert({
    id,
    workspace_id: w.workspaceId,
    type: 'COMMAND',
    command: 'true',
    env: '{}',
    labels: '{}',
    selector: '{}',
    resources: '{}',
    retry: JSON.stringify({ maxAttempts: 1, backoffSeconds: 10 }),
    timeout_seconds: 60,
    state: 'SUCCEEDED',
    attempt: 1,
    pool: 'managed',
    region: w.region,
    created_at: new Date(),
    available_at: new Date(),
    finished_at: new Date(),
    // As a run would have left it: the interrupted-submit reconciler removes rows never started.
    workflow_started: true,
  });
  for (const [i, [amount, toAt]] of entries.entries()) {
    await db().raw(
      `INSERT INTO usage_ledger (workspace_id, job_id, attempt, lease_id, pool, meter_window, from_at, to_at, cpu_seconds, gpu_seconds, gb_seconds, amount_usd, period_start)
       SELECT ?, ?, 1, 'lease_rows', 'managed', ?, ${toAt}, ${toAt}, 1, 0, 0, CAST(? AS numeric), current_period_start FROM billing_accounts WHERE workspace_id = ?`,
      [w.workspaceId, id, `rows:${i}`, amount, w.workspaceId],
    );
  }
  return id;
}

describe('billing periods', () => {
  it('rounds only at the line, carrying the difference, in a fixed order; the draft shows what it opens with; earlier periods are not swept in', async function () {
    const w = await billedWorkspace('team');
    const inPeriod = `now() - interval '1 second'`;
    for (const amounts of [['0.004'], ['0.004'], ['0.004'], ['0.0049', '0.0001'], ['-0.0031']])
      await jobWithEntries(
        w,
        amounts.map((a) => [a, inPeriod]),
      );
    // Usage before the period (the workspace was on another plan then, say): never invoiced.
    const before = await jobWithEntries(w, [
      [
        '0.5',
        `(SELECT current_period_start FROM billing_accounts WHERE workspace_id = '${w.workspaceId}') - interval '1 hour'`,
      ],
    ]);
    // Running totals 0.004 0.008 0.012 0.017 0.0139, rounded 0.00 0.01 0.01 0.02 0.01: each line is the step.
    const expected = ['0.00', '0.01', '0.00', '0.01', '-0.01'];
    assert.deepEqual(
      await closePeriods(db(), { ...periods(), at: new Date(), workspaceId: w.workspaceId, force: true }),
      { periods: 1, invoices: 1 },
    );
    const [draft] = (await readInvoices(db(), w.workspaceId, { limit: 5 })).invoices;
    assert.deepEqual([draft.status, draft.lines.map((l) => l.amountUsd), draft.totalUsd], ['draft', expected, '0.01']);
    await openDueInvoices(db(), new Date(), { workspaceId: w.workspaceId, skipGrace: true });
    const { rows } = await db().raw(
      `SELECT i.status, i.total_usd::text AS total, i.exact_usd = 0.0139 AS exact, i.rounding_usd = -0.0039 AS rounding,
              (SELECT array_agg(l.amount_usd::text ORDER BY l.position) FROM invoice_lines l WHERE l.invoice_id = i.id) AS amounts,
              (SELECT count(*)::int FROM invoice_entries e JOIN usage_ledger u ON u.id = e.ledger_id WHERE e.invoice_id = i.id AND u.job_id = ?) AS swept
       FROM invoices i WHERE i.workspace_id = ?`,
      [before, w.workspaceId],
    );
    assert.deepEqual(rows, [
      { status: 'open', total: '0.01', exact: true, rounding: true, amounts: expected, swept: 0 },
    ]);
    const [open] = (await readInvoices(db(), w.workspaceId, { limit: 5 })).invoices;
    assert.deepEqual({ ...open, status: 'draft' }, draft, 'the draft showed what it opened with');
    assert.equal(open.roundingUsd, '-0.003900000000');
  });

  it('closes and opens once however many closers race (the meter, the schedule, an operator), and again changes nothing', async function () {
    this.timeout(30_000);
    const w = await billedWorkspace('team');
    await jobWithEntries(w, [['0.123456789', `now() - interval '2 seconds'`]]);
    const end = await periodEnded(w.workspaceId);
    // Past its end to the microsecond (a time read back is cut to the millisecond).
    const at = new Date(end.getTime() + 1);
    await Promise.all(Array.from({ length: 6 }, () => closePeriods(db(), { ...periods(), at })));
    const account = () =>
      db()('billing_accounts')
        .where({ workspace_id: w.workspaceId })
        .first('current_period_start', 'current_period_end', db().raw('spent_usd::text AS spent'));
    const rolled = await account();
    assert.deepEqual([rolled.current_period_start, rolled.spent], [end, '0']);
    assert.equal(rolled.current_period_end.getTime(), end.getTime() + 3600_000, 'BILLING_PERIOD: an hour on');
    await closePeriods(db(), { ...periods(), at });
    assert.deepEqual(await account(), rolled);
    const [draft, ...none] = await invoicesOf(w.workspaceId);
    assert.deepEqual([draft.status, draft.period_end, none], ['draft', end, []]);
    assert.equal(draft.closes_at.getTime(), end.getTime() + periods().graceSeconds * 1000);

    // Before its grace it stays a draft; after it, openers racing open it once (times read back to the millisecond).
    assert.equal(
      await openDueInvoices(db(), new Date(draft.closes_at.getTime() - 1), { workspaceId: w.workspaceId }),
      0,
    );
    const due = new Date(draft.closes_at.getTime() + 1);
    const opened = await Promise.all(Array.from({ length: 6 }, () => openDueInvoices(db(), due)));
    assert.ok(opened.some((n) => n >= 1));
    const { rows } = await db().raw(
      `SELECT i.status, i.total_usd::text AS total, (SELECT count(*)::int FROM invoice_lines WHERE invoice_id = i.id) AS lines,
              (SELECT count(*)::int FROM invoice_entries WHERE invoice_id = i.id) AS entries FROM invoices i WHERE i.id = ?`,
      [draft.id],
    );
    assert.deepEqual(rows, [{ status: 'open', total: '0.12', lines: 1, entries: 1 }]);
  });

  it('is a Temporal Schedule: monthly at 00:00 UTC on the 1st, or every BILLING_PERIOD seconds; triggered, it closes a due period and opens its invoice after the grace', async function () {
    this.timeout(60_000);
    const { taskQueue } = testEnv().config.temporal;
    await withTemporal(async (client) => {
      const suite = await client.schedule.getHandle(periodScheduleId(taskQueue)).describe();
      assert.deepEqual(
        suite.spec.intervals?.map((i) => i.every),
        [3600_000],
      );
      assert.deepEqual(
        [suite.action.type, suite.action.type === 'startWorkflow' && suite.action.workflowType],
        ['startWorkflow', 'billingPeriod'],
      );
      // The production spec, on a schedule of its own: its next runs are the 1sts of the months at midnight UTC.
      const monthly = `periods-month-${Date.now()}`;
      await ensurePeriodSchedule(client, { taskQueue: monthly, period: 'month', log: pino({ level: 'silent' }) });
      try {
        const d = await client.schedule.getHandle(periodScheduleId(monthly)).describe();
        const now = new Date();
        const next = d.info.nextActionTimes.map((t) => t.toISOString());
        assert.equal(next[0], new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
        assert.ok(next.length >= 2 && next.every((t) => /^\d{4}-\d\d-01T00:00:00\.000Z$/.test(t)), next.join(' '));
      } finally {
        await client.schedule.getHandle(periodScheduleId(monthly)).delete();
      }
      assert.deepEqual(periodScheduleSpec({ seconds: 90 }), { intervals: [{ every: 90_000 }] });
    });

    const w = await billedWorkspace('team');
    const jobId = await finishedJob(w);
    const end = await periodEnded(w.workspaceId);
    // With the meter paused, only the schedule's run can close it.
    await withMeterPaused('invoice periods: only the schedule closes the period', async (client) => {
      const handle = client.schedule.getHandle(periodScheduleId(taskQueue));
      // A triggered run is due at the trigger's time cut to the second (Temporal's
      // TemporalScheduledStartTime): one triggered in the second the period ended would not close it.
      await sleep(Math.floor(end.getTime() / 1000) * 1000 + 1000 - Date.now());
      await handle.trigger();
      const draft = await waitFor(
        'the triggered run to close the period',
        async () => (await invoicesOf(w.workspaceId))[0],
        10_000,
      );
      assert.deepEqual([draft.status, draft.period_end], ['draft', end]);
      await waitFor(
        'the run to open it after the grace',
        async () => (await invoicesOf(w.workspaceId))[0].status === 'open',
        30_000,
      );
    });
    const invoices = await invoicesOf(w.workspaceId);
    assert.equal(invoices.length, 1);
    const lines = await db()('invoice_lines').where({ invoice_id: invoices[0].id }).pluck('job_id');
    assert.deepEqual(lines, [jobId]);
  });
});
