import type { Knex } from 'knex';

// Opening invoices (CONTRACT §9). A draft (./periods.ts) opens once its grace has passed: it claims
// the workspace's managed ledger entries recorded in its period and not yet invoiced, and those
// of the period before that came after that invoice opened (its late entries, the next invoice's
// lines of their own), so each entry lands in exactly one invoice (invoice_entries' key). Its lines
// are one per (job, attempt, lateness); each is rounded to the cent only as a line, in a fixed
// order, carrying what rounding left over to the next, so the lines add up to the exact total
// rounded, and `rounding_usd` states the difference. All of it in SQL numerics, never JS floats.

const BATCH = 500;

/**
 * The ledger entries an invoice `i` may claim, as rows `u` (the caller adds `WHERE i.id = …`):
 * managed entries of its workspace recorded before its end, in its period or in the previous
 * invoice's (never in a period that had no invoice, such as one on a plan without invoices), and
 * in no invoice yet.
 */
export const CLAIMABLE_SQL = `invoices i
  LEFT JOIN LATERAL (SELECT p.period_start, p.period_end FROM invoices p
                     WHERE p.workspace_id = i.workspace_id AND p.period_start < i.period_start
                     ORDER BY p.period_start DESC LIMIT 1) prev ON true
  JOIN usage_ledger u ON u.workspace_id = i.workspace_id AND u.pool = 'managed' AND u.to_at < i.period_end
    AND u.to_at >= coalesce(prev.period_start, i.period_start)
    AND (u.to_at >= i.period_start OR u.to_at < prev.period_end)
    AND NOT EXISTS (SELECT 1 FROM invoice_entries e WHERE e.ledger_id = u.id)`;

/**
 * An invoice's lines from `entries` (a FROM clause and its WHERE, the ledger rows named `u`) for a
 * period starting at `periodStart` (SQL): per (job, attempt, late) its sums, and its amount: the running total
 * rounded to the cent, less the running total before it rounded. The amounts add up to the exact
 * sum rounded, and no line is off by more than a cent.
 */
export function linesSql(entries: string, periodStart: string): string {
  return `WITH g AS (
      SELECT u.job_id, u.attempt, u.to_at < ${periodStart} AS late,
             sum(u.cpu_seconds) AS cpu, sum(u.gpu_seconds) AS gpu, sum(u.gb_seconds) AS gb, sum(u.amount_usd) AS exact
      FROM ${entries} GROUP BY 1, 2, 3
    ), c AS (
      SELECT g.*, row_number() OVER w AS position, sum(g.exact) OVER w AS upto FROM g
      WINDOW w AS (ORDER BY g.job_id COLLATE "C", g.attempt, g.late ROWS UNBOUNDED PRECEDING)
    )
    SELECT position, job_id, attempt, late, cpu, gpu, gb, exact, round(upto, 2) - round(upto - exact, 2) AS amount FROM c`;
}

/**
 * SQL, a scalar: the credit the ledger rows of `entries` (as in linesSql, binding its parameters)
 * drew, net of what corrections among them gave back. The invoice shows it as a line of its own.
 */
export const creditDrawnSql = (entries: string) =>
  `(SELECT coalesce(-sum(c.amount_usd), 0) FROM credit_ledger c WHERE c.ledger_id IN (SELECT u.id FROM ${entries}))`;

/**
 * SQL: an invoice's credit line from its usage lines' exact sum and rounded sum and the credit
 * drawn (SQL expressions): it brings the lines to the bill, round(exact − credit, 2).
 */
export const creditLineAmountSql = (exact: string, rounded: string, credit: string) =>
  `round(${exact} - ${credit}, 2) - ${rounded}`;

export interface OpenOptions {
  /** Only this workspace's drafts. */
  workspaceId?: string;
  /** Open them now, whatever their grace (an operator's, for support): later entries go to the next invoice. */
  skipGrace?: boolean;
  /** Called after each batch of workspaces (an activity heartbeats). */
  progress?: () => void;
}

/** Opens every draft whose grace has passed by `at`, each workspace's oldest first; returns how many. */
export async function openDueInvoices(db: Knex, at: Date, o: OpenOptions = {}): Promise<number> {
  let opened = 0;
  for (;;) {
    const workspaces = await db('invoices')
      .where({ status: 'draft' })
      .where(o.skipGrace ? 'period_end' : 'closes_at', '<=', at)
      .modify((q) => (o.workspaceId ? q.where({ workspace_id: o.workspaceId }) : q))
      .distinct('workspace_id')
      .orderBy('workspace_id')
      .limit(BATCH)
      .pluck('workspace_id');
    let now = 0;
    for (const workspaceId of workspaces)
      while (await openOldestDraft(db, workspaceId, at, o.skipGrace ?? false)) now++;
    opened += now;
    o.progress?.();
    // Nothing opened: none due, or another opener took them.
    if (now === 0) return opened;
  }
}

/**
 * The workspace's oldest draft, opened if due, in one transaction that holds its row: its entries
 * claimed, its lines written, its figures set, then `open`. Oldest first, so an invoice claims the
 * late entries of the one before only after that one has claimed its own.
 */
async function openOldestDraft(db: Knex, workspaceId: string, at: Date, skipGrace: boolean): Promise<boolean> {
  return db.transaction(async (trx) => {
    // Compared in SQL: times read into JS lose their microseconds.
    const { rows } = await trx.raw(
      `SELECT id, ${skipGrace ? 'period_end' : 'closes_at'} <= ? AS due FROM invoices
       WHERE workspace_id = ? AND status = 'draft' ORDER BY period_start LIMIT 1 FOR UPDATE`,
      [at, workspaceId],
    );
    const draft = rows[0] as { id: string; due: boolean } | undefined;
    if (!draft?.due) return false;
    await trx.raw(
      `INSERT INTO invoice_entries (ledger_id, invoice_id)
       SELECT u.id, i.id FROM ${CLAIMABLE_SQL} WHERE i.id = ?
       ON CONFLICT (ledger_id) DO NOTHING`,
      [draft.id],
    );
    const claimed = `invoice_entries e JOIN usage_ledger u ON u.id = e.ledger_id JOIN invoices i ON i.id = e.invoice_id WHERE e.invoice_id = ?`;
    await trx.raw(
      `INSERT INTO invoice_lines (invoice_id, position, job_id, attempt, late, cpu_seconds, gpu_seconds, gb_seconds, exact_usd, amount_usd)
       SELECT ?, l.position, l.job_id, l.attempt, l.late, l.cpu, l.gpu, l.gb, l.exact, l.amount
       FROM (${linesSql(claimed, 'i.period_start')}) l`,
      [draft.id, draft.id],
    );
    // The credit its entries drew, as a line that brings the lines to what is billed.
    await trx.raw(
      `INSERT INTO invoice_lines (invoice_id, position, kind, job_id, attempt, late, cpu_seconds, gpu_seconds, gb_seconds, exact_usd, amount_usd)
       SELECT :id, t.lines + 1, 'credit', NULL, NULL, false, 0, 0, 0, -t.credit, ${creditLineAmountSql('t.exact', 't.rounded', 't.credit')}
       FROM (SELECT count(*) AS lines, coalesce(sum(l.exact_usd), 0) AS exact, coalesce(sum(l.amount_usd), 0) AS rounded,
                    ${creditDrawnSql(claimed.replace('?', ':id'))} AS credit
             FROM invoice_lines l WHERE l.invoice_id = :id) t
       WHERE t.credit <> 0`,
      { id: draft.id },
    );
    await trx.raw(
      `UPDATE invoices SET exact_usd = t.exact, total_usd = round(t.exact, 2), rounding_usd = round(t.exact, 2) - t.exact, credit_usd = t.credit,
         status = 'open', opened_at = now()
       FROM (SELECT coalesce(sum(exact_usd), 0) AS exact, coalesce(-sum(exact_usd) FILTER (WHERE kind = 'credit'), 0) AS credit
             FROM invoice_lines WHERE invoice_id = ?) t
       WHERE id = ?`,
      [draft.id, draft.id],
    );
    // Corrections the credit did not absorb were never sent to Stripe's meter (it takes no
    // negative events): they are settled as one negative invoice item, sent by the relay.
    await trx.raw(
      `INSERT INTO stripe_invoice_credits (invoice_id, workspace_id, customer_id, amount_cents)
       SELECT :id, b.workspace_id, b.stripe_customer_id, t.cents
       FROM (SELECT round(sum(s.value_microusd) / 10000.0)::bigint AS cents
             FROM stripe_usage_corrections s JOIN invoice_entries e ON e.ledger_id = s.ledger_id WHERE e.invoice_id = :id) t
       JOIN billing_accounts b ON b.workspace_id = :ws
       WHERE t.cents < 0 AND b.stripe_customer_id IS NOT NULL`,
      { id: draft.id, ws: workspaceId },
    );
    return true;
  });
}

export interface PaidInvoice {
  workspaceId: string;
  /** Ours, when Stripe's invoice carries it. */
  invoiceId?: string;
  stripeInvoiceId?: string;
  /** The end of the period Stripe's invoice covers, to find ours when neither ID is known yet. */
  periodEnd?: Date;
  paidAt?: Date;
}

/**
 * Stripe's `invoice.paid`: the workspace's open invoice it names (by our ID, else its Stripe ID,
 * else the period it ends) becomes `paid`, and learns its Stripe ID. False when no open invoice
 * matched (already paid, still a draft, or unknown). Runs in the caller's transaction when given one.
 */
export async function markInvoicePaid(db: Knex | Knex.Transaction, p: PaidInvoice): Promise<boolean> {
  const ways: Array<[string, unknown]> = [];
  if (p.invoiceId) ways.push(['id', p.invoiceId]);
  if (p.stripeInvoiceId) ways.push(['stripe_invoice_id', p.stripeInvoiceId]);
  if (p.periodEnd) ways.push(['period_end', p.periodEnd]);
  for (const [column, value] of ways) {
    const n = await db('invoices')
      .where({ workspace_id: p.workspaceId, status: 'open', [column]: value })
      .update({
        status: 'paid',
        paid_at: p.paidAt ?? db.fn.now(),
        stripe_invoice_id: db.raw('coalesce(stripe_invoice_id, ?)', [p.stripeInvoiceId ?? null]),
      });
    if (n > 0) return true;
  }
  return false;
}
