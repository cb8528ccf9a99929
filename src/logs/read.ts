import type { Knex } from 'knex';
import type { JobState } from '../../workflows/definitions';

// Reading a job's log back: a page of events after a seq, bounded in rows and bytes.

export type LogEvent =
  | { kind: 'line'; seq: number; stream: string; line: string; ts: string }
  | { kind: 'truncated'; seq: number; droppedLines: number; droppedBytes: number; ts: string };

export interface LogPage {
  events: LogEvent[];
  /** More is stored after the page: read again at once. */
  full: boolean;
  /**
   * The job as its row stood just before the lines were read (null: no such job). Lines are
   * pushed before the result and refused after it, so a terminal job whose page is not full has
   * nothing more to send.
   */
  job: { state: JobState; exitCode: number | null } | null;
}

/** A replay page: lines of up to 64 KiB each, so rows alone would not bound its size. */
export const LOG_PAGE = { maxRows: 1000, maxBytes: 1024 * 1024 };

interface StoredRow {
  seq: number;
  kind: 'line' | 'truncated';
  stream: string;
  line: string;
  ts: Date;
  data: { droppedLines: number | string; droppedBytes: number | string };
  keep: boolean;
}

/**
 * Events after `afterSeq`, oldest first: up to `maxRows` rows and `maxBytes` of line text (at
 * least one row, however long). The text of rows past the page never leaves the database.
 */
export async function readLog(
  db: Knex,
  jobId: string,
  afterSeq: number,
  page: Partial<typeof LOG_PAGE> = {},
): Promise<LogPage> {
  const { maxRows, maxBytes } = { ...LOG_PAGE, ...page };
  const job = await db('jobs as j')
    .leftJoin('job_log_state as s', 's.job_id', 'j.id')
    .where('j.id', jobId)
    .first(
      db.raw('coalesce(s.next_seq, 1) AS log_next_seq'),
      's.truncated_seq AS log_truncated_seq',
      's.tail_start_seq AS log_tail_start_seq',
      'j.state',
      'j.exit_code',
    );
  if (!job) return { events: [], full: false, job: null };
  // Seqs are dense but for the lines dropped between the marker and the tail: skip those, and
  // read a bounded seq range, so a flooded job's page never costs more than the page (a plan
  // on stale statistics would otherwise scan and sort the rest of the log).
  const from =
    job.log_truncated_seq !== null && afterSeq >= job.log_truncated_seq
      ? Math.max(afterSeq, job.log_tail_start_seq - 1)
      : afterSeq;
  const to = from + maxRows + 1;
  // A row after the page (if any) comes back with keep = false and no text: it says `full`.
  const { rows } = await db.raw(
    `SELECT seq, kind, stream, ts, data, keep, CASE WHEN keep THEN line END AS line
     FROM (
       SELECT *, n <= ? AND (n = 1 OR upto <= ?) AS keep
       FROM (
         SELECT seq, kind, stream, ts, data, line, bytes, row_number() OVER w AS n, sum(bytes) OVER w AS upto
         FROM job_logs WHERE job_id = ? AND seq > ? AND seq <= ?
         WINDOW w AS (ORDER BY seq)) ranked
       WHERE n = 1 OR upto - bytes <= ?) page
     ORDER BY seq`,
    [maxRows, maxBytes, jobId, from, to, maxBytes],
  );
  const events = (rows as StoredRow[])
    .filter((r) => r.keep)
    .map((r): LogEvent =>
      r.kind === 'truncated'
        ? {
            kind: 'truncated',
            seq: r.seq,
            droppedLines: Number(r.data.droppedLines),
            droppedBytes: Number(r.data.droppedBytes),
            ts: new Date(r.ts).toISOString(),
          }
        : { kind: 'line', seq: r.seq, stream: r.stream, line: r.line, ts: new Date(r.ts).toISOString() },
    );
  // Cut by a cap, or the range ended at the marker's gap with the tail still to come.
  return {
    events,
    full: events.length < rows.length || to < job.log_next_seq - 1,
    job: { state: job.state, exitCode: job.exit_code },
  };
}
