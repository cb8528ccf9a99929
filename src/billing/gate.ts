import type { Knex } from 'knex';
import { AppError } from '../shared/errors';

/** What a managed job may cost at most, as its manifest says. */
export interface WorstCase {
  timeoutSeconds: number;
  resources?: { cpu?: number; gpu?: number; memoryMb?: number } | null;
  retry: { maxAttempts: number };
}

/**
 * SQL: the credit a billed account `b` on plan `p` may not pass: a prepaid plan's credit (or its
 * hard cap, when lower), another plan's hard cap; null when nothing bounds it.
 */
export const CREDIT_SQL = `CASE WHEN p.prepaid THEN least(b.credit_usd, b.hard_cap_usd) ELSE b.hard_cap_usd END`;

/** SQL: the account `acct` of a billed workspace, locked, with this job's worst case as `amount`; no row on an unbilled plan. */
const ACCOUNT = `SELECT b.spent_usd, b.reserved_usd, ${CREDIT_SQL} AS credit,
    (?::numeric * p.cpu_second_usd + ?::numeric * p.gpu_second_usd + ?::numeric / 1024 * p.gb_second_usd) * ?::numeric * ?::numeric AS amount
  FROM billing_accounts b JOIN workspaces w ON w.id = b.workspace_id JOIN billing_plans p ON p.id = w.plan
  WHERE b.workspace_id = ? AND p.billed
  FOR UPDATE OF b`;
const accountBindings = (workspaceId: string, job: WorstCase) => {
  const r = job.resources ?? {};
  return [r.cpu ?? 1, r.gpu ?? 0, r.memoryMb ?? 1024, job.timeoutSeconds, job.retry.maxAttempts, workspaceId];
};

/** SQL: what the reservation holds, or, when the credit does not cover it, an error that aborts the statement. */
const HELD = `CASE WHEN acct.credit IS NULL OR acct.spent_usd + acct.reserved_usd + acct.amount <= acct.credit THEN acct.amount
  ELSE compute_credit_refused(acct.spent_usd, acct.reserved_usd, acct.amount, acct.credit) END`;

/** The refusal raised by compute_credit_refused (see the usage ledger's migration) as our 402. */
function refusalOf(err: unknown): unknown {
  const e = err as { code?: string; detail?: string };
  if (e?.code !== 'CB402' || !e.detail) return err;
  return new AppError('resource.limit_reached', "The workspace's credit does not cover this managed job's worst case", JSON.parse(e.detail));
}

/**
 * The credit gate (CONTRACT §9) on a new managed job, in its insert's own statement: the account
 * row is locked, and the job's worst case (timeoutSeconds × resources at the plan's prices, for
 * each attempt it may make) reserved only if the period's spend, what is reserved and this fit
 * the credit; otherwise the statement fails, and the row is never written. Concurrent submits
 * queue on that lock, each seeing what the one before reserved, so together they never pass it.
 * `insert` is the row's INSERT … RETURNING *; returns the row.
 */
export async function insertWithReservation(db: Knex, insert: { sql: string; bindings: readonly unknown[] }, workspaceId: string, job: WorstCase): Promise<Record<string, unknown>> {
  try {
    const { rows } = await db.raw(
      `WITH acct AS (${ACCOUNT}), ins AS (${insert.sql}),
       held AS (INSERT INTO billing_reservations (job_id, workspace_id, amount_usd) SELECT ins.id, ins.workspace_id, ${HELD} FROM ins, acct)
       SELECT * FROM ins`,
      [...accountBindings(workspaceId, job), ...insert.bindings] as Knex.RawBinding[],
    );
    return rows[0];
  } catch (err) {
    throw refusalOf(err);
  }
}

/**
 * The same gate for a job whose row exists (an idempotent submit carried out again, a manual
 * retry), in the caller's transaction: a refusal aborts it. A reservation the job holds already stands.
 */
export async function reserveWorstCase(trx: Knex.Transaction, workspaceId: string, jobId: string, job: WorstCase): Promise<void> {
  try {
    await trx.raw(
      `WITH acct AS (${ACCOUNT})
       INSERT INTO billing_reservations (job_id, workspace_id, amount_usd)
       SELECT ?, ?, ${HELD} FROM acct WHERE NOT EXISTS (SELECT 1 FROM billing_reservations WHERE job_id = ?)
       ON CONFLICT (job_id) DO NOTHING`,
      [...accountBindings(workspaceId, job), jobId, workspaceId, jobId],
    );
  } catch (err) {
    throw refusalOf(err);
  }
}
