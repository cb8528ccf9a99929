import type { Knex } from 'knex';
import { prepared } from '../db/prepared';

// A job's end and its pushed lines NOTIFY its log's followers only when someone followed it
// (src/jobs/projection.ts, src/logs/push.ts): a NOTIFY wakes every LISTEN connection of the
// database, one transaction each, whatever channel it listens on. A follower marks the row before
// its first read of the job. The end and a push take the row too, so either they see the mark and
// notify, or the follower's read after the mark sees what they wrote.

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
