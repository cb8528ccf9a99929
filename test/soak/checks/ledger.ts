import type { Knex } from 'knex';
import type { Finding } from './finding';

// The usage ledger (src/db/migrations/20261201020000_usage_ledger.ts): an attempt's entries, one
// per window (each meter tick it ran through, then `end`, then `reported` when its agent gave its
// own figures), are a chain from its assignment to its end: each starts where those before it got
// to, so none counts a moment twice or leaves one out. Their sum is its runtime × resources (or
// the agent's figures where it reported some). The period's spend is the sum of its entries, and
// never above the hard cap.

/** Numeric comparisons in SQL leave exact decimals; a trace of float in reported figures is not a mismatch. */
const EPSILON = '0.000001';

export async function checkLedger(db: Knex, workspaceId: string): Promise<Finding[]> {
  const found: Finding[] = [];
  const { rows: breaks } = await db.raw(
    `SELECT job_id, attempt, id, meter_window, from_at, expected FROM (
       SELECT u.*, coalesce(max(u.to_at) OVER (PARTITION BY u.job_id, u.attempt ORDER BY u.id
                                               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), a.assigned_at) AS expected
       FROM usage_ledger u JOIN job_attempts a ON a.lease_id = u.lease_id
       WHERE u.workspace_id = ? AND u.meter_window <> 'reported') e
     WHERE from_at <> expected`,
    [workspaceId],
  );
  for (const b of breaks)
    found.push({
      jobId: b.job_id,
      what: `attempt ${b.attempt}'s entry ${b.id} (${b.meter_window}) starts at ${iso(b.from_at)}, not ${iso(b.expected)}`,
    });
  const { rows: attempts } = await db.raw(
    `SELECT a.job_id, a.attempt, a.lease_id, a.ended_at IS NOT NULL AS ended,
            count(u.id) FILTER (WHERE u.meter_window = 'end') AS ends,
            count(u.id) FILTER (WHERE u.meter_window = 'reported') AS reports,
            abs(coalesce(sum(u.cpu_seconds) FILTER (WHERE u.meter_window <> 'reported'), 0)
                - extract(epoch FROM a.ended_at - a.assigned_at) * coalesce((j.resources->>'cpu')::numeric, 1)) > ${EPSILON} AS runtime_off,
            jsonb_typeof(a.result->'usage') = 'object' AS reported,
            coalesce(abs(sum(u.cpu_seconds) - (a.result->'usage'->>'cpuSeconds')::numeric) > ${EPSILON}, false) AS cpu_off,
            coalesce(abs(sum(u.gb_seconds) - (a.result->'usage'->>'gbSeconds')::numeric) > ${EPSILON}, false) AS gb_off
     FROM job_attempts a JOIN jobs j ON j.id = a.job_id LEFT JOIN usage_ledger u ON u.lease_id = a.lease_id
     WHERE j.workspace_id = ?
     GROUP BY a.job_id, a.attempt, a.lease_id, a.ended_at, a.assigned_at, a.result, j.resources`,
    [workspaceId],
  );
  for (const a of attempts) {
    const where = `attempt ${a.attempt} (${a.lease_id})`;
    if (!a.ended) found.push({ jobId: a.job_id, what: `${where} never ended: nothing closes its ledger` });
    else if (Number(a.ends) !== 1) found.push({ jobId: a.job_id, what: `${where} has ${a.ends} end entries` });
    else if (a.runtime_off)
      found.push({ jobId: a.job_id, what: `${where}: its entries do not add up to its runtime × cpu` });
    if (a.reported && Number(a.reports) !== 1)
      found.push({ jobId: a.job_id, what: `${where} reported usage and has ${a.reports} reported entries` });
    if (a.reported && (a.cpu_off || a.gb_off))
      found.push({ jobId: a.job_id, what: `${where}: its entries do not add up to the usage its agent reported` });
  }
  const account = await db('billing_accounts')
    .where({ workspace_id: workspaceId })
    .first(
      db.raw('spent_usd::text AS spent'),
      db.raw('hard_cap_usd::text AS cap'),
      db.raw(
        `(SELECT coalesce(sum(amount_usd), 0)::text FROM usage_ledger u
          WHERE u.workspace_id = billing_accounts.workspace_id AND u.period_start = billing_accounts.current_period_start) AS ledger`,
      ),
      db.raw(
        'spent_usd = (SELECT coalesce(sum(amount_usd), 0) FROM usage_ledger u WHERE u.workspace_id = billing_accounts.workspace_id AND u.period_start = billing_accounts.current_period_start) AS equal',
      ),
      db.raw('hard_cap_usd IS NOT NULL AND spent_usd > hard_cap_usd AS over'),
    );
  if (!account.equal)
    found.push({ what: `the period's spend is ${account.spent}, its ledger sums to ${account.ledger}` });
  if (account.over) found.push({ what: `the period's spend ${account.spent} passed the hard cap ${account.cap}` });
  return found;
}

/** The period's spend and cap, for the report. */
export async function spendOf(db: Knex, workspaceId: string): Promise<{ spent: string; cap: string | null }> {
  const row = await db('billing_accounts')
    .where({ workspace_id: workspaceId })
    .first(db.raw('spent_usd::text AS spent'), db.raw('hard_cap_usd::text AS cap'));
  return { spent: row.spent, cap: row.cap };
}

const iso = (t: Date) => new Date(t).toISOString();
