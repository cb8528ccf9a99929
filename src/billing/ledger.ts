import type { Knex } from 'knex';
import type { Step } from '../db/one-trip';
import { prepared } from '../db/prepared';

// The usage ledger's writes (the table is src/billing's; see its migration). Every entry runs from
// where its attempt's previous entry ended (its assignment, for the first) to its own end, so the
// entries of an attempt add up to exactly (its end − its assignment) × its resources, however ticks
// and the end interleave: a tick that ran past the end is made good by a negative remainder.
//
// Writers of one attempt's entries take turns on its job_attempts row: a tick locks it, the end
// has updated it, and each reads the previous entry in a statement of its own after the lock (a
// snapshot taken before it could miss what the writer before committed), so none counts what
// another wrote. The unique key (job, attempt, window) refuses a repeat.

/** A job's resources (CONTRACT §3 defaults), as SQL over `jobs j`. */
const CPU = `coalesce((j.resources->>'cpu')::numeric, 1)`;
const GPU = `coalesce((j.resources->>'gpu')::numeric, 0)`;
const GB = `(coalesce((j.resources->>'memoryMb')::numeric, 1024) / 1024)`;

/** What figures cost at the plan `p`: managed jobs on a billed plan only, self jobs and hobby at $0. */
const priced = (cpu: string, gpu: string, gb: string) =>
  `CASE WHEN j.pool = 'managed' AND p.billed THEN ${cpu} * p.cpu_second_usd + ${gpu} * p.gpu_second_usd + ${gb} * p.gb_second_usd ELSE 0 END`;

/** The workspace's plan and account beside `jobs j`. */
const PLAN_JOINS = `JOIN workspaces w ON w.id = j.workspace_id
  JOIN billing_plans p ON p.id = w.plan
  JOIN billing_accounts b ON b.workspace_id = j.workspace_id`;

/** Where an attempt's next entry starts: its previous entry's end, else its assignment. */
const fromOf = (a: string) =>
  `(SELECT coalesce(max(u.to_at), ${a}.assigned_at) FROM usage_ledger u WHERE u.job_id = ${a}.job_id AND u.attempt = ${a}.attempt)`;

const COLUMNS = `workspace_id, job_id, attempt, lease_id, pool, meter_window, from_at, to_at, cpu_seconds, gpu_seconds, gb_seconds, amount_usd, period_start`;

/** The row of a runtime entry over `s.secs`, from `f.from_at` to `toSql`. */
const runtimeEntry = (
  a: string,
  window: string,
  toSql: string,
) => `j.workspace_id, ${a}.job_id, ${a}.attempt, ${a}.lease_id, j.pool, ${window}, f.from_at, ${toSql},
  s.secs * ${CPU}, s.secs * ${GPU}, s.secs * ${GB}, ${priced(`s.secs * ${CPU}`, `s.secs * ${GPU}`, `s.secs * ${GB}`)}, b.current_period_start`;

/**
 * The end of an attempt, as statements to run after the one that wrote its `ended_at`, in its
 * transaction (src/db/one-trip.ts): the remainder from the last tick to the end, then, where the
 * agent reported its own figures, a correcting entry that makes the attempt's sums equal them.
 * Both are kept once however often the end is written.
 */
export function attemptEndEntries(leaseId: string, reported: boolean): Step[] {
  const end = { statement: endEntry, values: [leaseId] };
  return reported ? [end, { statement: reportedEntry, values: [leaseId] }] : [end];
}

const endEntry = prepared(
  'usage_attempt_end',
  `INSERT INTO usage_ledger (${COLUMNS})
   SELECT ${runtimeEntry('a', `'end'`, 'a.ended_at')}
   FROM job_attempts a JOIN jobs j ON j.id = a.job_id ${PLAN_JOINS}
   CROSS JOIN LATERAL (SELECT ${fromOf('a')} AS from_at) f
   CROSS JOIN LATERAL (SELECT extract(epoch FROM a.ended_at - f.from_at) AS secs) s
   WHERE a.lease_id = $1 AND a.ended_at IS NOT NULL
   ON CONFLICT (job_id, attempt, meter_window) DO NOTHING`,
);

// Each figure reported replaces the sum so far; one not reported stays as metered.
const delta = (figure: string, column: string) =>
  `coalesce((a.result->'usage'->>'${figure}')::numeric - t.${column}, 0)`;
const [CPU_DELTA, GPU_DELTA, GB_DELTA] = [
  delta('cpuSeconds', 'cpu'),
  delta('gpuSeconds', 'gpu'),
  delta('gbSeconds', 'gb'),
];
const reportedEntry = prepared(
  'usage_attempt_reported',
  `INSERT INTO usage_ledger (${COLUMNS})
   SELECT j.workspace_id, a.job_id, a.attempt, a.lease_id, j.pool, 'reported', a.ended_at, a.ended_at,
     ${CPU_DELTA}, ${GPU_DELTA}, ${GB_DELTA}, ${priced(CPU_DELTA, GPU_DELTA, GB_DELTA)}, b.current_period_start
   FROM job_attempts a JOIN jobs j ON j.id = a.job_id ${PLAN_JOINS}
   CROSS JOIN LATERAL (SELECT sum(cpu_seconds) AS cpu, sum(gpu_seconds) AS gpu, sum(gb_seconds) AS gb
                       FROM usage_ledger u WHERE u.job_id = a.job_id AND u.attempt = a.attempt) t
   WHERE a.lease_id = $1 AND a.ended_at IS NOT NULL AND jsonb_typeof(a.result->'usage') = 'object'
   ON CONFLICT (job_id, attempt, meter_window) DO NOTHING`,
);

/**
 * One batch of a tick: for up to `limit` attempts running before `windowEnd` and not yet metered
 * to it, an entry from their previous one to `windowEnd`. Attempts locked right now (ending, or a
 * heartbeat) are skipped: the end writes their remainder, or the next tick covers them.
 *
 * Two statements in one transaction: the attempts are locked first, and only then is each one's
 * previous entry read, in a statement whose snapshot is newer than the lock. Read in the locking
 * statement, it could predate an entry that another tick (of another window) committed just
 * before letting go of the row, and both would count the time between. Returns how many attempts
 * it took up (the tick calls it until a batch comes back short) and how many entries it wrote.
 */
export async function meterRunning(
  db: Knex,
  windowEnd: Date,
  limit: number,
): Promise<{ taken: number; entries: number }> {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw(
      `SELECT a.lease_id FROM job_attempts a
       WHERE a.ended_at IS NULL AND a.assigned_at < CAST(:end AS timestamptz)
         AND NOT EXISTS (SELECT 1 FROM usage_ledger u WHERE u.job_id = a.job_id AND u.attempt = a.attempt AND u.to_at >= CAST(:end AS timestamptz))
       ORDER BY a.lease_id
       LIMIT :limit
       FOR UPDATE OF a SKIP LOCKED`,
      { end: windowEnd, limit },
    );
    if (rows.length === 0) return { taken: 0, entries: 0 };
    const { rowCount } = await trx.raw(
      `INSERT INTO usage_ledger (${COLUMNS})
       SELECT ${runtimeEntry('d', ':window', 'CAST(:end AS timestamptz)')}
       FROM job_attempts d JOIN jobs j ON j.id = d.job_id ${PLAN_JOINS}
       CROSS JOIN LATERAL (SELECT ${fromOf('d')} AS from_at) f
       CROSS JOIN LATERAL (SELECT extract(epoch FROM CAST(:end AS timestamptz) - f.from_at) AS secs) s
       WHERE d.lease_id = ANY(:leases) AND f.from_at < CAST(:end AS timestamptz)
       ON CONFLICT (job_id, attempt, meter_window) DO NOTHING`,
      {
        end: windowEnd,
        window: `tick:${windowEnd.toISOString()}`,
        leases: rows.map((r: { lease_id: string }) => r.lease_id),
      },
    );
    return { taken: rows.length, entries: rowCount ?? 0 };
  });
}

/** A job that ended lets go of what its reservation still held back (its consumption stays spent). */
export async function releaseReservation(db: Knex | Knex.Transaction, jobId: string): Promise<void> {
  await db.raw('DELETE FROM billing_reservations WHERE job_id = ?', [jobId]);
}

/**
 * The same as a CTE's body inside the statement that ends a job: the reservations of the managed
 * jobs among `rows` (rows that statement wrote) let go when `ended`, a boolean SQL expression.
 */
export const reservationReleaseSql = (rows: string, ended: string) =>
  `DELETE FROM billing_reservations WHERE ${ended} AND job_id IN (SELECT id FROM ${rows} WHERE ${rows}.pool = 'managed')`;
