import type { Knex } from 'knex';
import { applyProjection } from '../src/jobs/projection';
import type { AttemptCheck, ProjectJobInput } from '../workflows/definitions';
import type { JobActivities } from './types';

export interface ActivityDeps {
  db: Knex;
}

/** Activities are built from injected dependencies; they read no environment and are idempotent. */
export function createActivities({ db }: ActivityDeps): JobActivities {
  return {
    async projectJob(input: ProjectJobInput): Promise<void> {
      await applyProjection(db, input);
    },

    async checkAttempt({ leaseId, lostAfterMs }): Promise<AttemptCheck> {
      // Ages come from the database clock, the same one that stamped the heartbeats.
      const row = await db('job_attempts as a')
        .join('agents as g', 'g.id', 'a.agent_id')
        .where('a.lease_id', leaseId)
        .first(
          db.raw('extract(epoch from (now() - a.last_heartbeat_at)) * 1000 as age_ms'),
          db.raw('extract(epoch from (g.drain_deadline_at - now())) * 1000 as drain_ms'),
          'g.drain',
          db.raw('g.deregistered_at IS NOT NULL AS deregistered'),
        );
      if (!row) return { msUntilLost: 0, msUntilDrainDeadline: null };
      const drainMs = row.drain && row.drain_ms !== null ? Math.max(0, Math.ceil(Number(row.drain_ms))) : null;
      return { msUntilLost: Math.ceil(lostAfterMs - Number(row.age_ms)), msUntilDrainDeadline: drainMs, ...(row.deregistered && { deregistered: true }) };
    },
  };
}
