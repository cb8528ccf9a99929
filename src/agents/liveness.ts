import type { Knex } from 'knex';
import type { AttemptCheck } from '../../workflows/definitions';

// Whether an agent is lost, decided in one place and always on the database's clock: the clock
// that stamped its heartbeats. An API host's or worker's clock may be off; the database's is the
// same for every process that asks.

/** SQL: how long the agent (`agents` under `alias`) has been silent, in ms, as `silent_ms`. */
export const agentSilence = (alias = 'agents') =>
  `extract(epoch from (now() - ${alias}.last_heartbeat_at)) * 1000 AS silent_ms`;

/** SQL condition, with `lostAfterMs` as its one binding: the agent (`agents` under `alias`) is not lost. */
export const agentHeardWithin = (alias = 'agents') =>
  `extract(epoch from (now() - ${alias}.last_heartbeat_at)) * 1000 <= ?`;

/** An agent silent for longer than `lostAfterMs` is lost (OFFLINE; its attempts requeued). */
export const isLost = (silentMs: number, lostAfterMs: number): boolean => silentMs > lostAfterMs;

/** SQL: since when an attempt (`job_attempts` under `alias`) has been heard of: its last heartbeat, else its assignment. */
const attemptHeardAt = (alias: string) => `coalesce(${alias}.last_heartbeat_at, ${alias}.assigned_at)`;

/**
 * How an attempt's agent stands, for the job's run (its `checkAttempt` activity): the time left
 * before it counts as lost, its drain deadline, and whether it was removed.
 */
export async function attemptLiveness(db: Knex, leaseId: string, lostAfterMs: number): Promise<AttemptCheck> {
  const row = await db('job_attempts as a')
    .join('agents as g', 'g.id', 'a.agent_id')
    .where('a.lease_id', leaseId)
    .first(
      db.raw(`extract(epoch from (now() - ${attemptHeardAt('a')})) * 1000 as age_ms`),
      db.raw('extract(epoch from (g.drain_deadline_at - now())) * 1000 as drain_ms'),
      'g.drain',
      db.raw('g.deregistered_at IS NOT NULL AS deregistered'),
    );
  if (!row) return { msUntilLost: 0, msUntilDrainDeadline: null };
  const drainMs = row.drain && row.drain_ms !== null ? Math.max(0, Math.ceil(Number(row.drain_ms))) : null;
  return {
    msUntilLost: Math.ceil(lostAfterMs - Number(row.age_ms)),
    msUntilDrainDeadline: drainMs,
    ...(row.deregistered && { deregistered: true }),
  };
}

/**
 * Live jobs whose current attempt has not been heard of for `silentForMs`: a result may have
 * been lost with its agent (the reconciler repairs such rows from their run).
 */
export function silentAttempts(
  db: Knex,
  o: { liveStates: readonly string[]; silentForMs: number; limit: number },
): Promise<Array<{ id: string; workspace_id: string }>> {
  return db('jobs as j')
    .join('job_attempts as a', 'a.lease_id', 'j.lease_id')
    .whereIn('j.state', o.liveStates)
    .where(db.raw(attemptHeardAt('a')), '<', db.raw('now() - make_interval(secs => ?)', [o.silentForMs / 1000]))
    .limit(o.limit)
    .select('j.id', 'j.workspace_id');
}
