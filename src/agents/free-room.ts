import type { Knex } from 'knex';
import type { Capacity } from './record';

// What a node's running jobs leave of the room it registered: a poll claims only jobs that fit.

/**
 * The resources of the jobs a node holds now, the contract's defaults filled in: each open
 * attempt's, and each job reserved for it whose attempt is not yet recorded (a hand-out answered
 * before its row commits: the commit clears the reservation as it writes the attempt).
 */
const IN_USE = `SELECT coalesce(sum(coalesce((j.resources->>'cpu')::numeric, 1)), 0)::float8 AS cpu,
    coalesce(sum(coalesce((j.resources->>'memoryMb')::numeric, 1024)), 0)::float8 AS "memoryMb",
    coalesce(sum(coalesce((j.resources->>'gpu')::numeric, 0)), 0)::float8 AS gpu
  FROM jobs j
  WHERE j.id IN (SELECT a.job_id FROM job_attempts a WHERE a.agent_id = :node AND a.ended_at IS NULL
                 UNION SELECT r.id FROM jobs r WHERE r.claimed_by = :node AND r.claimed_until > now())`;

/** What the node's running jobs leave of its capacity; undefined for a node that registered none. */
export async function freeOf(db: Knex, node: { id: string; capacity: Capacity | null }): Promise<Capacity | undefined> {
  if (!node.capacity) return undefined;
  const { rows } = await db.raw(IN_USE, { node: node.id });
  return less(node.capacity, rows[0] as Capacity);
}

export const less = (a: Capacity, b: Capacity): Capacity => ({
  cpu: a.cpu - b.cpu,
  memoryMb: a.memoryMb - b.memoryMb,
  gpu: a.gpu - b.gpu,
});
