import type { Knex } from 'knex';
import { type PageRequest, decodeCursor, encodeCursor } from '../shared/cursor';
import { AppError } from '../shared/errors';
import { CLAIMABLE_SQL, creditDrawnSql, creditLineAmountSql, linesSql } from './invoices';
import { usdNumber } from './money';
import { billingOf } from './subscription';

// A workspace's invoices as read (CONTRACT §9), newest period first, each with its lines. An open
// or paid invoice reads as it was fixed when it opened; a draft shows what it would claim if it
// opened now (it may still grow until it does). Figures stay exact decimal strings until rendered.

export type InvoiceStatus = 'draft' | 'open' | 'paid';

export interface InvoiceLine {
  /** `usage`: a job's attempt; `credit`: the prepaid credit the invoice's usage drew (no job, a negative amount). */
  kind: 'usage' | 'credit';
  jobId: string | null;
  attempt: number | null;
  late: boolean;
  /** Exact decimals: seconds rounded to the microsecond, the amount to the cent. */
  cpuSeconds: string;
  gpuSeconds: string;
  gbSeconds: string;
  amountUsd: string;
}

export interface Invoice {
  id: string;
  periodStart: string;
  periodEnd: string;
  status: InvoiceStatus;
  /** When a draft opens. */
  closesAt: string;
  totalUsd: string;
  /** The prepaid credit the invoice's usage drew (its credit line, as a positive figure). */
  creditUsd: string;
  /** totalUsd − the exact sum (to 12 decimals; stored exactly). */
  roundingUsd: string;
  lines: InvoiceLine[];
}

type Db = Knex | Knex.Transaction;

/** A line's columns as text, from a row of lines `l` with cpu, gpu, gb and amount. */
const LINE_COLUMNS = `l.kind, l.job_id, l.attempt, l.late, round(l.cpu, 6)::text AS cpu, round(l.gpu, 6)::text AS gpu, round(l.gb, 6)::text AS gb, l.amount::text AS amount`;

const lineOf = (r: Record<string, unknown>): InvoiceLine => ({
  kind: r.kind as InvoiceLine['kind'],
  jobId: r.job_id as string | null,
  attempt: r.attempt as number | null,
  late: r.late as boolean,
  cpuSeconds: r.cpu as string,
  gpuSeconds: r.gpu as string,
  gbSeconds: r.gb as string,
  amountUsd: r.amount as string,
});

/** A draft as it would open now: its lines (the credit's last) and figures, computed, nothing claimed. */
async function draftPreview(
  db: Db,
  id: string,
): Promise<{ lines: InvoiceLine[]; total: string; rounding: string; credit: string }> {
  const entries = `${CLAIMABLE_SQL} WHERE i.id = ?`;
  const lines = `(${linesSql(entries, 'i.period_start')}) l`;
  const { rows } = await db.raw(
    `SELECT 'usage' AS kind, ${LINE_COLUMNS.replace('l.kind, ', '')}, l.exact FROM ${lines} ORDER BY l.position`,
    [id],
  );
  const { rows: sums } = await db.raw(
    `SELECT round(t.exact - t.credit, 2)::text AS total, round(round(t.exact - t.credit, 2) - (t.exact - t.credit), 12)::text AS rounding,
            round(t.credit, 6)::text AS credit, (${creditLineAmountSql('t.exact', 't.rounded', 't.credit')})::text AS credit_line
     FROM (SELECT coalesce(sum(l.exact), 0) AS exact, coalesce(sum(l.amount), 0) AS rounded, ${creditDrawnSql(entries)} AS credit FROM ${lines}) t`,
    [id, id],
  );
  const s = sums[0];
  const credit = /^0(\.0*)?$/.test(s.credit) ? [] : [creditLine(s.credit_line)];
  return { lines: [...rows.map(lineOf), ...credit], total: s.total, rounding: s.rounding, credit: s.credit };
}

const creditLine = (amount: string): InvoiceLine => ({
  kind: 'credit',
  jobId: null,
  attempt: null,
  late: false,
  cpuSeconds: '0',
  gpuSeconds: '0',
  gbSeconds: '0',
  amountUsd: amount,
});

/**
 * Up to `limit` of the workspace's invoices, newest period first, those before the invoice
 * `before`; `more` when there are others after them.
 */
export async function readInvoices(
  db: Db,
  workspaceId: string,
  o: { limit: number; before?: string },
): Promise<{ invoices: Invoice[]; more: boolean }> {
  const q = db('invoices')
    .where({ workspace_id: workspaceId })
    .orderBy('period_start', 'desc')
    .limit(o.limit + 1)
    .select(
      'id',
      'period_start',
      'period_end',
      'status',
      'closes_at',
      db.raw('total_usd::text AS total'),
      db.raw('round(rounding_usd, 12)::text AS rounding'),
      db.raw('round(coalesce(credit_usd, 0), 6)::text AS credit'),
    );
  if (o.before)
    q.where(
      'period_start',
      '<',
      db('invoices').where({ id: o.before, workspace_id: workspaceId }).select('period_start'),
    );
  const found: Array<Record<string, unknown>> = await q;
  const rows = found.slice(0, o.limit);
  const fixed = rows.filter((r) => r.status !== 'draft').map((r) => r.id as string);
  const { rows: lineRows } = fixed.length
    ? await db.raw(
        `SELECT l.invoice_id, ${LINE_COLUMNS} FROM (SELECT *, cpu_seconds AS cpu, gpu_seconds AS gpu, gb_seconds AS gb, amount_usd AS amount FROM invoice_lines) l
         WHERE l.invoice_id = ANY(?) ORDER BY l.invoice_id, l.position`,
        [fixed],
      )
    : { rows: [] };
  const invoices: Invoice[] = [];
  for (const r of rows) {
    const draft = r.status === 'draft' ? await draftPreview(db, r.id as string) : undefined;
    invoices.push({
      id: r.id as string,
      periodStart: (r.period_start as Date).toISOString(),
      periodEnd: (r.period_end as Date).toISOString(),
      status: r.status as InvoiceStatus,
      closesAt: (r.closes_at as Date).toISOString(),
      totalUsd: draft?.total ?? (r.total as string),
      creditUsd: draft?.credit ?? (r.credit as string),
      roundingUsd: draft?.rounding ?? (r.rounding as string),
      lines: draft?.lines ?? lineRows.filter((l: { invoice_id: string }) => l.invoice_id === r.id).map(lineOf),
    });
  }
  return { invoices, more: found.length > o.limit };
}

/** CONTRACT §9's invoice record: JSON numbers, made here from the exact decimals. */
export function invoiceRecord(inv: Invoice) {
  return {
    id: inv.id,
    periodStart: inv.periodStart,
    periodEnd: inv.periodEnd,
    status: inv.status,
    totalUsd: usdNumber(inv.totalUsd),
    creditUsd: usdNumber(inv.creditUsd),
    roundingUsd: usdNumber(inv.roundingUsd),
    lines: inv.lines.map((l) => ({
      kind: l.kind,
      jobId: l.jobId,
      attempt: l.attempt,
      late: l.late,
      cpuSeconds: Number(l.cpuSeconds),
      gpuSeconds: Number(l.gpuSeconds),
      gbSeconds: Number(l.gbSeconds),
      amountUsd: usdNumber(l.amountUsd),
    })),
  };
}

/** Invoices as the surfaces read them: only on a plan that has them. */
export function createInvoices({ db }: { db: Knex }) {
  return {
    async list(workspaceId: string, page: PageRequest) {
      const { plan } = await billingOf(db, workspaceId);
      if (!plan.invoices)
        throw new AppError('billing.not_available', `The ${plan.id} plan has no invoices (payg and team have them)`, {
          plan: plan.id,
        });
      const before = page.cursor ? decodeCursor(page.cursor, 'inv', page.cursorParam ?? 'pageToken') : undefined;
      const { invoices, more } = await readInvoices(db, workspaceId, { limit: page.limit, before });
      return {
        items: invoices.map(invoiceRecord),
        nextCursor: more ? encodeCursor(invoices[invoices.length - 1].id) : null,
      };
    },
  };
}

export type Invoices = ReturnType<typeof createInvoices>;
