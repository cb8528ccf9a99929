import type { Knex } from 'knex';
import type { Principal } from '../auth/principal';
import { prepared } from '../db/prepared';
import { notFound } from '../shared/errors';
import { type JobState, TERMINAL_STATES } from '../../workflows/definitions';
import { createJobLister } from './list';
import { ATTEMPT_COLUMNS, JOB_COLUMNS, type Job, type JobAttempt, attemptFromRow, jobFromRow } from './record';
import type { JobListFilter } from './schemas';

/**
 * The most attempts a read lists. A job makes at most maxAttempts plus a few agent losses, but
 * manual retries add more; the read stays bounded whatever the history.
 */
const ATTEMPTS_READ_MAX = 100;

/** Reading jobs back: one, its attempts, a filtered page, and the open ones counted. */
export function createJobQueries(db: Knex) {
  const listJobs = createJobLister(db);
  const JOB_BY_ID = `FROM jobs WHERE id = $1 AND workspace_id = $2 AND workflow_started`;
  const selectJob = prepared('jobs_get', `SELECT ${JOB_COLUMNS} ${JOB_BY_ID}`);

  /** The job if it is the caller's and acknowledged; another workspace's job is simply not found. */
  async function get(principal: Principal, jobId: string): Promise<Job> {
    // An assignment is written before its poll is answered (transitions.written): no agent has
    // been told a job is its own while this still reads it queued.
    const [row] = await selectJob(db, [jobId, principal.workspaceId]);
    if (!row) throw notFound('job');
    return jobFromRow(row);
  }

  /**
   * The job's attempts, oldest first. The job is read first: that applies its visibility (another
   * workspace's job is not found, as by `get`).
   */
  async function attempts(principal: Principal, jobId: string): Promise<JobAttempt[]> {
    await get(principal, jobId);
    const { rows } = await db.raw(
      `SELECT ${ATTEMPT_COLUMNS} FROM job_attempts WHERE job_id = ? ORDER BY attempt, assigned_at LIMIT ?`,
      [jobId, ATTEMPTS_READ_MAX],
    );
    return rows.map(attemptFromRow);
  }

  return {
    get,
    attempts,

    list: (principal: Principal, filter: JobListFilter) => listJobs(principal.workspaceId, filter),

    /** Visible jobs not yet terminal per workspace and state (the queue-depth gauge; one index-only scan). */
    async openJobCounts(): Promise<Array<{ workspaceId: string; state: string; count: number }>> {
      const rows = await db('jobs')
        .where({ workflow_started: true })
        .whereNotIn('state', TERMINAL_STATES as JobState[])
        .groupBy('workspace_id', 'state')
        .select('workspace_id', 'state', db.raw('count(*)::int as count'));
      return rows.map((r: { workspace_id: string; state: string; count: number }) => ({
        workspaceId: r.workspace_id,
        state: r.state,
        count: r.count,
      }));
    },
  };
}

export type JobQueries = ReturnType<typeof createJobQueries>;
