import type { Knex } from 'knex';
import type { Finding } from './finding';

// Leases from the attempts table: no two attempts of a job held theirs at the same time (each
// from its assignment to its end), every attempt of an ended job ended, and only an attempt that
// ended by its own result (or a cancel it confirmed) carries one, so a fenced attempt's report
// never decided anything; a job ended by an agent's exit code shows its last attempt's.

export async function checkLeases(db: Knex, workspaceId: string): Promise<Finding[]> {
  const found: Finding[] = [];
  const { rows: overlaps } = await db.raw(
    `SELECT a.job_id, a.lease_id AS a_lease, b.lease_id AS b_lease, a.attempt AS a_attempt, b.attempt AS b_attempt,
            a.assigned_at AS a_from, a.ended_at AS a_to, b.assigned_at AS b_from, b.ended_at AS b_to
     FROM job_attempts a JOIN job_attempts b ON b.job_id = a.job_id AND a.lease_id < b.lease_id
     JOIN jobs j ON j.id = a.job_id
     WHERE j.workspace_id = ?
       AND a.assigned_at < coalesce(b.ended_at, 'infinity') AND b.assigned_at < coalesce(a.ended_at, 'infinity')`,
    [workspaceId],
  );
  for (const o of overlaps)
    found.push({
      jobId: o.job_id,
      what: `attempts ${o.a_attempt} (${o.a_lease}, ${iso(o.a_from)}..${iso(o.a_to)}) and ${o.b_attempt} (${o.b_lease}, ${iso(o.b_from)}..${iso(o.b_to)}) overlap`,
    });
  const { rows: open } = await db.raw(
    `SELECT a.job_id, a.lease_id, j.state FROM job_attempts a JOIN jobs j ON j.id = a.job_id
     WHERE j.workspace_id = ? AND a.ended_at IS NULL AND j.state IN ('SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED')`,
    [workspaceId],
  );
  for (const o of open) found.push({ jobId: o.job_id, what: `${o.state}, yet its attempt ${o.lease_id} never ended` });
  // A cancel ends the attempt at once, yet its lease holds the job (CANCELLING) until the agent
  // confirms with its result or the grace passes: a result there is the confirmation, on the job's
  // last attempt, which ends CANCELLED. Any other ending fences the lease off.
  const { rows: fenced } = await db.raw(
    `SELECT a.job_id, a.lease_id, a.end_reason FROM job_attempts a JOIN jobs j ON j.id = a.job_id
     WHERE j.workspace_id = ? AND a.result IS NOT NULL AND a.end_reason IS DISTINCT FROM 'result'
       AND NOT (a.end_reason = 'cancelled' AND j.state = 'CANCELLED' AND j.lease_id = a.lease_id)`,
    [workspaceId],
  );
  for (const f of fenced)
    found.push({ jobId: f.job_id, what: `attempt ${f.lease_id} ended by ${f.end_reason} carries a result` });
  // A job its agent ended: its exit code is its last attempt's, which ended by that result.
  const { rows: decided } = await db.raw(
    `SELECT j.id, j.state, j.exit_code, j.lease_id, last.lease_id AS last_lease, last.end_reason,
            (last.result->>'exitCode')::int AS result_exit
     FROM jobs j CROSS JOIN LATERAL (
       SELECT * FROM job_attempts a WHERE a.job_id = j.id ORDER BY a.attempt DESC, a.assigned_at DESC LIMIT 1) last
     WHERE j.workspace_id = ? AND j.state = 'SUCCEEDED'`,
    [workspaceId],
  );
  for (const d of decided)
    if (d.end_reason !== 'result' || d.result_exit !== 0 || d.exit_code !== 0 || d.lease_id !== d.last_lease)
      found.push({
        jobId: d.id,
        what: `SUCCEEDED (exit ${d.exit_code}, lease ${d.lease_id}) but its last attempt ${d.last_lease} ended by ${d.end_reason} with exit ${d.result_exit}`,
      });
  return found;
}

const iso = (t: Date | null) => (t ? new Date(t).toISOString() : 'open');
