import type { Knex } from 'knex';
import type { BillingPeriod } from '../config';
import { newId } from '../shared/ids';

// Closing billing periods (CONTRACT §9). Closing an account's period rolls it to the next one (its
// spend starts again at 0) and, on a plan with invoices, makes the closed period's `draft` invoice,
// both in one statement that holds the account row: whichever closer gets there first (the meter's
// tick, the periods schedule, an operator) closes the period, the others find nothing left to do.
// The draft opens after its grace (./invoices.ts).

export interface PeriodSettings {
  period: BillingPeriod;
  /** How long a draft waits for late entries of its period's last windows. */
  graceSeconds: number;
}

/** The grace is a meter tick, and half a tick more (at least 5 s) for a tick that runs late. */
export function periodSettingsOf(billing: { meterTickSeconds: number; period: BillingPeriod }): PeriodSettings {
  return {
    period: billing.period,
    graceSeconds: billing.meterTickSeconds + Math.max(5, Math.ceil(billing.meterTickSeconds / 2)),
  };
}

/** Production's: calendar months, a 60 s tick. */
export const DEFAULT_PERIODS = periodSettingsOf({ meterTickSeconds: 60, period: 'month' });

export interface CloseOptions extends PeriodSettings {
  /** Periods that ended by then close. */
  at: Date;
  /** Only this workspace's account. */
  workspaceId?: string;
  /** Also close the workspace's current period at `at` itself (an operator's close; needs workspaceId). */
  force?: boolean;
  /** Called after each batch of accounts (an activity heartbeats). */
  progress?: () => void;
}

export interface CloseReport {
  periods: number;
  invoices: number;
}

const BATCH = 500;

/**
 * Closes every period that ended by `at` (an account idle for months closes one per period it
 * missed), then, with `force`, the workspace's current period at `at`. Run again, it finds nothing.
 */
export async function closePeriods(db: Knex, o: CloseOptions): Promise<CloseReport> {
  const report = { periods: 0, invoices: 0 };
  for (;;) {
    const due = await db('billing_accounts')
      .where('current_period_end', '<=', o.at)
      .modify((q) => (o.workspaceId ? q.where({ workspace_id: o.workspaceId }) : q))
      .orderBy('workspace_id')
      .limit(BATCH)
      .pluck('workspace_id');
    let closed = 0;
    for (const workspaceId of due) {
      const one = await closeOne(db, workspaceId, o, false);
      closed += one.periods;
      report.invoices += one.invoices;
    }
    report.periods += closed;
    o.progress?.();
    // Nothing closed: none due, or another closer took them all.
    if (closed === 0) break;
  }
  if (o.force) {
    if (!o.workspaceId) throw new Error('closing a period before its end is for one workspace');
    const one = await closeOne(db, o.workspaceId, o, true);
    report.periods += one.periods;
    report.invoices += one.invoices;
  }
  return report;
}

/** Where the period after one ending at `o.old_end` ends. */
function nextEndSql(period: BillingPeriod): string {
  // Month arithmetic in UTC whatever the session's time zone (on timestamptz it would use it).
  if (period === 'month') return `(o.old_end AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC'`;
  // One period on, or, when closed later than that, one period from the close (no run of empty ones).
  const length = `make_interval(secs => ${Number(period.seconds)})`;
  return `CASE WHEN o.old_end + ${length} > CAST(:at AS timestamptz) THEN o.old_end + ${length} ELSE CAST(:at AS timestamptz) + ${length} END`;
}

/**
 * One account's period closed, when it is due (or, forced, when `at` falls inside it): the account
 * row locked, re-read, rolled, and the draft inserted, in one statement.
 */
async function closeOne(db: Knex, workspaceId: string, o: CloseOptions, force: boolean): Promise<CloseReport> {
  const due = force
    ? 'current_period_start < CAST(:at AS timestamptz) AND current_period_end > CAST(:at AS timestamptz)'
    : 'current_period_end <= CAST(:at AS timestamptz)';
  const { rows } = await db.raw(
    `WITH o AS (
       SELECT workspace_id, current_period_start AS old_start, current_period_end AS old_end,
              ${force ? 'CAST(:at AS timestamptz)' : 'current_period_end'} AS closed_at
       FROM billing_accounts WHERE workspace_id = :workspaceId AND ${due}
       FOR UPDATE
     ), rolled AS (
       UPDATE billing_accounts b SET current_period_start = o.closed_at, current_period_end = ${force ? 'o.old_end' : nextEndSql(o.period)},
         spent_usd = 0, updated_at = now()
       FROM o WHERE b.workspace_id = o.workspace_id
       RETURNING o.workspace_id, o.old_start, o.closed_at
     ), drafted AS (
       INSERT INTO invoices (id, workspace_id, period_start, period_end, closes_at)
       SELECT :invoiceId, r.workspace_id, r.old_start, r.closed_at, r.closed_at + make_interval(secs => :grace)
       FROM rolled r JOIN workspaces w ON w.id = r.workspace_id JOIN billing_plans p ON p.id = w.plan
       WHERE p.invoices
       ON CONFLICT (workspace_id, period_start) DO NOTHING
       RETURNING id
     )
     SELECT CAST((SELECT count(*) FROM rolled) AS int) AS periods, CAST((SELECT count(*) FROM drafted) AS int) AS invoices`,
    { at: o.at, workspaceId, invoiceId: newId('inv'), grace: o.graceSeconds },
  );
  return { periods: rows[0].periods, invoices: rows[0].invoices };
}
