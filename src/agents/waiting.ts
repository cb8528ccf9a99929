import type { Knex } from 'knex';
import { type Job, resourcesOf } from '../jobs/record';
import { agentHeardWithin } from './liveness';

/**
 * Why a queued managed job waits, when no agent could take it: none of its region online with
 * the labels its selector asks for, or none of those with the room its `resources` ask for.
 * Null when one could (it is then just waiting its turn), and for any other job: a workspace's
 * own jobs wait for agents it runs itself, and their reads cost no more than the job's row.
 */
export function whyWaitingIn(db: Knex, lostAfterMs: number) {
  return async function whyWaiting(job: Job): Promise<string | null> {
    if (job.state !== 'QUEUED' || job.pool !== 'managed') return null;
    const want = resourcesOf(job);
    const pool = `the managed pool in region ${job.region}`;
    const row = await db('agents')
      .where({ pool: 'managed', region: job.region })
      .whereNull('deregistered_at')
      .where('drain', false)
      .whereRaw('labels @> ?::jsonb', [JSON.stringify(job.selector)])
      .whereRaw(agentHeardWithin(), [lostAfterMs])
      .first(
        db.raw('count(*)::int AS online'),
        db.raw(
          `count(*) FILTER (WHERE capacity IS NULL OR ((capacity->>'cpu')::numeric >= ? AND (capacity->>'memoryMb')::numeric >= ? AND (capacity->>'gpu')::numeric >= ?))::int AS roomy`,
          [want.cpu, want.memoryMb, want.gpu],
        ),
        db.raw(
          `max((capacity->>'cpu')::numeric)::float8 AS cpu, max((capacity->>'memoryMb')::numeric)::float8 AS "memoryMb", max((capacity->>'gpu')::numeric)::float8 AS gpu`,
        ),
      );
    if (row.online === 0)
      return `no agent of ${pool} is online${Object.keys(job.selector).length ? ' with the labels its selector asks for' : ''}`;
    if (row.roomy > 0) return null;
    return `no agent of ${pool} has the room it asks for (cpu ${want.cpu}, memoryMb ${want.memoryMb}, gpu ${want.gpu}); the most any has: cpu ${row.cpu}, memoryMb ${row.memoryMb}, gpu ${row.gpu}`;
  };
}
