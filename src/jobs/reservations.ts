import type { Knex } from 'knex';

// A reservation keeps other pollers off a queued row while its assign Update runs, with no
// transaction held. It is not a transition: the job stays QUEUED until the workflow assigns it,
// and an expired reservation is simply free again.

/** Reserves the best claimable row for the agent (priority, then age; labels must match). */
export async function reserveNext(
  db: Knex | Knex.Transaction,
  agent: { id: string; workspace_id: string; labels: Record<string, string> },
  skip: string[],
  seconds: number,
  types?: string[],
) {
  const { rows } = await db.raw(
    `UPDATE jobs SET claimed_by = ?, claimed_until = now() + make_interval(secs => ?)
     WHERE id = (
       SELECT id FROM jobs
       WHERE workspace_id = ? AND state = 'QUEUED' AND workflow_started AND pool = 'self'
         AND available_at <= now() AND selector <@ ?::jsonb
         AND (claimed_until IS NULL OR claimed_until < now())
         AND NOT (id = ANY(?::text[])) AND (?::text[] IS NULL OR type = ANY(?::text[]))
       ORDER BY priority DESC, created_at, id
       FOR UPDATE SKIP LOCKED
       LIMIT 1)
       -- A poll that began before its agent was removed takes nothing after.
       AND NOT EXISTS (SELECT 1 FROM agents WHERE id = ? AND deregistered_at IS NOT NULL)
     RETURNING *`,
    [agent.id, seconds, agent.workspace_id, JSON.stringify(agent.labels), skip, types ?? null, types ?? null, agent.id],
  );
  return rows[0] as ({ id: string } & Record<string, unknown>) | undefined;
}

/** Frees a row the workflow refused to assign (cancelled meanwhile). */
export async function releaseReservation(db: Knex, jobId: string, agentId: string): Promise<void> {
  await db('jobs').where({ id: jobId, claimed_by: agentId }).update({ claimed_by: null, claimed_until: null });
}
