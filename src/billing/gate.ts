import type { Knex } from 'knex';
import { AppError } from '../shared/errors';

/** What a managed job may cost at most, as its manifest says. */
export interface WorstCase {
  timeoutSeconds: number;
  resources?: { cpu?: number; gpu?: number; memoryMb?: number } | null;
  retry: { maxAttempts: number };
}

/**
 * SQL: the spend a billed account `b` on plan `p` may not pass this period: its hard cap, and on a
 * prepaid plan what the period has spent plus the credit left (usage draws the credit as it is
 * metered, so spend + balance is where the balance runs out); null when nothing bounds it.
 */
export const CREDIT_SQL = `least(b.hard_cap_usd, CASE WHEN p.prepaid THEN b.spent_usd + b.credit_usd END)`;

/** SQL: the workspace's account `acct`, locked, with its plan and this job's worst case as `amount`. */
const ACCOUNT = `SELECT w.plan, p.billed, b.status, b.spent_usd, b.reserved_usd, ${CREDIT_SQL} AS credit,
    (?::numeric * p.cpu_second_usd + ?::numeric * p.gpu_second_usd + ?::numeric / 1024 * p.gb_second_usd) * ?::numeric * ?::numeric AS amount
  FROM billing_accounts b JOIN workspaces w ON w.id = b.workspace_id JOIN billing_plans p ON p.id = w.plan
  WHERE b.workspace_id = ?
  FOR UPDATE OF b`;
const accountBindings = (workspaceId: string, job: WorstCase) => {
  const r = job.resources ?? {};
  return [r.cpu ?? 1, r.gpu ?? 0, r.memoryMb ?? 1024, job.timeoutSeconds, job.retry.maxAttempts, workspaceId];
};

/**
 * SQL: what the reservation holds, or an error that aborts the statement: an unbilled plan has no
 * managed pool, an unpaid subscription none until it is paid, and the credit must cover the job.
 */
const HELD = `CASE WHEN NOT acct.billed THEN compute_managed_refused('unbilled', acct.plan)
  WHEN acct.status IN ('past_due', 'canceled') THEN compute_managed_refused(acct.status, acct.plan)
  WHEN acct.credit IS NULL OR acct.spent_usd + acct.reserved_usd + acct.amount <= acct.credit THEN acct.amount
  ELSE compute_credit_refused(acct.spent_usd, acct.reserved_usd, acct.amount, acct.credit) END`;

/** The refusals raised by compute_credit_refused and compute_managed_refused (see their migrations) as ours. */
function refusalOf(err: unknown): unknown {
  const e = err as { code?: string; detail?: string };
  if (!e?.detail) return err;
  if (e.code === 'CB402')
    return new AppError(
      'resource.limit_reached',
      "The workspace's credit does not cover this managed job's worst case",
      JSON.parse(e.detail),
    );
  if (e.code !== 'CB403') return err;
  const { reason, plan } = JSON.parse(e.detail) as { reason: string; plan: string };
  if (reason === 'unbilled') {
    return new AppError(
      'billing.not_available',
      `The ${plan} plan has no managed pool: run the job on your own agents (pool self), or move to a billed plan`,
      { plan },
    );
  }
  return new AppError(
    'resource.limit_reached',
    `The subscription is ${reason}: managed jobs are refused until it is paid`,
    { plan, status: reason },
  );
}

/**
 * The credit gate (CONTRACT §9) on a new managed job, in its insert's own statement: the account
 * row is locked, and the job's worst case (timeoutSeconds × resources at the plan's prices, for
 * each attempt it may make) reserved only if the period's spend, what is reserved and this fit
 * the credit; otherwise the statement fails, and the row is never written. Concurrent submits
 * queue on that lock, each seeing what the one before reserved, so together they never pass it.
 * `insert` is the row's INSERT … RETURNING *; returns the row.
 */
export async function insertWithReservation(
  db: Knex,
  insert: { sql: string; bindings: readonly unknown[] },
  workspaceId: string,
  job: WorstCase,
): Promise<Record<string, unknown>> {
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
export async function reserveWorstCase(
  trx: Knex.Transaction,
  workspaceId: string,
  jobId: string,
  job: WorstCase,
): Promise<void> {
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

/**
 * Before a managed job's next attempt (one its retry policy allows, or one the service starts
 * again: a drain deadline, a removal, a lost lease, a reset): its reservation must still hold one
 * attempt's worst case. What the attempts before it consumed is topped up under the gate, in one
 * statement that locks the account; false when the credit cannot cover it (or the plan has no
 * managed pool), and then nothing changes.
 */
export async function coverNextAttempt(db: Knex, jobId: string): Promise<boolean> {
  const { rows } = await db.raw(
    `WITH acct AS (
       SELECT b.workspace_id, b.spent_usd, b.reserved_usd, p.billed, ${CREDIT_SQL} AS credit,
         (coalesce((j.resources->>'cpu')::numeric, 1) * p.cpu_second_usd + coalesce((j.resources->>'gpu')::numeric, 0) * p.gpu_second_usd
           + coalesce((j.resources->>'memoryMb')::numeric, 1024) / 1024 * p.gb_second_usd) * j.timeout_seconds AS attempt_usd
       FROM jobs j JOIN billing_accounts b ON b.workspace_id = j.workspace_id
       JOIN workspaces w ON w.id = j.workspace_id JOIN billing_plans p ON p.id = w.plan
       WHERE j.id = :job
       FOR UPDATE OF b
     ), need AS (
       SELECT acct.*, greatest(acct.attempt_usd - coalesce((SELECT greatest(r.amount_usd - r.consumed_usd, 0) FROM billing_reservations r WHERE r.job_id = :job), 0), 0) AS short
       FROM acct
     ), topped AS (
       INSERT INTO billing_reservations (job_id, workspace_id, amount_usd)
       SELECT :job, need.workspace_id, need.short FROM need
       WHERE need.billed AND need.short > 0 AND (need.credit IS NULL OR need.spent_usd + need.reserved_usd + need.short <= need.credit)
       ON CONFLICT (job_id) DO UPDATE SET amount_usd = billing_reservations.amount_usd + excluded.amount_usd
       RETURNING 1
     )
     SELECT need.billed AND (need.short = 0 OR EXISTS (SELECT 1 FROM topped)) AS covered FROM need`,
    { job: jobId },
  );
  return rows[0]?.covered === true;
}
