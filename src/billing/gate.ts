import type { Knex } from 'knex';
import { AppError } from '../shared/errors';
import { usdNumber } from './money';

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

/**
 * The credit gate (CONTRACT §9), in the submit's transaction, after its row: a managed job on a
 * billed plan reserves its worst case (timeoutSeconds × resources at the plan's prices, for each
 * attempt it may make) in one statement that locks the account row and checks that the period's
 * spend, what is reserved and this fit the credit. Concurrent submits queue on that lock, each
 * seeing what the one before reserved, so together they never pass it. Over it: 402, and the
 * transaction (the row with it) is rolled back by the caller.
 */
export async function reserveWorstCase(trx: Knex.Transaction, workspaceId: string, jobId: string, job: WorstCase): Promise<void> {
  const r = job.resources ?? {};
  const { rows } = await trx.raw(
    `WITH acct AS (
       SELECT b.spent_usd, b.reserved_usd, ${CREDIT_SQL} AS credit,
              (?::numeric * p.cpu_second_usd + ?::numeric * p.gpu_second_usd + ?::numeric / 1024 * p.gb_second_usd) * ?::numeric * ?::numeric AS amount
       FROM billing_accounts b JOIN workspaces w ON w.id = b.workspace_id JOIN billing_plans p ON p.id = w.plan
       WHERE b.workspace_id = ? AND p.billed
       FOR UPDATE OF b
     ), held AS (
       INSERT INTO billing_reservations (job_id, workspace_id, amount_usd)
       SELECT ?, ?, amount FROM acct WHERE credit IS NULL OR spent_usd + reserved_usd + amount <= credit
       ON CONFLICT (job_id) DO NOTHING
       RETURNING 1
     )
     SELECT round(spent_usd, 6)::text AS spent_usd, round(reserved_usd, 6)::text AS reserved_usd, round(credit, 6)::text AS credit, round(amount, 6)::text AS amount,
            (SELECT count(*) FROM held) > 0 OR EXISTS (SELECT 1 FROM billing_reservations WHERE job_id = ?) AS reserved
     FROM acct`,
    [r.cpu ?? 1, r.gpu ?? 0, r.memoryMb ?? 1024, job.timeoutSeconds, job.retry.maxAttempts, workspaceId, jobId, workspaceId, jobId],
  );
  const acct = rows[0];
  // No row: an unbilled plan, which no credit bounds.
  if (!acct || acct.reserved) return;
  // Rounded to the micro-dollar for the reader; the ledger keeps every digit.
  const figure = (v: string) => usdNumber(v);
  throw new AppError('resource.limit_reached', "The workspace's credit does not cover this managed job's worst case", {
    spentUsd: figure(acct.spent_usd),
    reservedUsd: figure(acct.reserved_usd),
    requiredUsd: figure(acct.amount),
    creditUsd: figure(acct.credit),
  });
}
