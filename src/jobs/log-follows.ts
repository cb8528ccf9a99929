import type { Knex } from 'knex';
import { prepared } from '../db/prepared';

// A job's end NOTIFYs its log's followers only when someone followed it (src/jobs/projection.ts):
// a NOTIFY wakes every LISTEN connection of the database, one transaction each, whatever channel
// it listens on. A follower marks the row before its first read of the job. Both writes take the
// row, so either the end sees the mark and notifies, or the follower's read after the mark sees
// the end.

const mark = prepared('job_log_followed', 'UPDATE jobs SET log_followed = true WHERE id = $1 AND NOT log_followed');

export function logFollows(db: Knex) {
  return {
    /** Marks the job followed, before the follower first reads it. */
    async mark(jobId: string): Promise<void> {
      await mark(db, [jobId]);
    },
  };
}

export type LogFollows = ReturnType<typeof logFollows>;
