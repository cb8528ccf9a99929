import { logLinesIngested } from '../metrics/registry';
import type { Knex } from 'knex';
import type { Config } from '../config';
import { NOTIFY } from '../db/channels';
import { costOf, logBudgetOf, planPush } from './budget';
import type { Principal } from '../auth/principal';
import { requireLiveLease } from '../jobs/lease';
import type { JobState } from '../../workflows/definitions';

export interface PushedLine {
  seq: number;
  stream: 'stdout' | 'stderr';
  line: string;
  ts?: string;
}

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

/** Lines one push stored, contiguous after `after`: the rows as a read would return them. */
export interface StoredLines {
  jobId: string;
  after: number;
  events: LogEvent[];
}

interface LineRow {
  seq: number;
  agent_seq: number;
  stream: string;
  line: string;
  ts: string;
  bytes: number;
}

interface Incoming {
  line: PushedLine;
  bytes: number;
}

/**
 * Job logs in PostgreSQL, one row per line with a job-wide seq (the SSE event ID). The agent's
 * own seq per lease makes pushes idempotent. Each line costs its bytes plus a fixed row overhead
 * and a job keeps a bounded number of lines: past either budget the first half keeps the head,
 * the second a rolling tail, and one `truncated` marker between them counts what was dropped.
 *
 * Seqs are handed out without gaps and only the oldest tail lines are deleted, so the head is
 * seqs [1, marker) and the tail [jobs.log_tail_start_seq, jobs.log_next_seq): trimming deletes
 * by primary-key range from the tail's start, as many rows as the push's own excess needs.
 */
export function createLogsService({ db, config }: { db: Knex; config: Config }) {
  const budget = logBudgetOf(config.limits);
  const storedListeners = new Set<(s: StoredLines) => void>();

  async function push(principal: Principal, body: { nodeId: string; jobId: string; leaseId: string; lines: PushedLine[] }) {
    const out = await pushTransaction(principal, body);
    logLinesIngested.inc(out.accepted);
    if (out.stored) for (const fn of storedListeners) fn(out.stored);
    return { accepted: out.accepted, duplicates: out.duplicates };
  }

  function pushTransaction(principal: Principal, body: { nodeId: string; jobId: string; leaseId: string; lines: PushedLine[] }) {
    return db.transaction(async (trx): Promise<{ accepted: number; duplicates: number; stored?: StoredLines }> => {
      // The exclusive lock serializes pushes per job, so seqs are assigned in commit order.
      const job = await requireLiveLease(trx, { jobId: body.jobId, leaseId: body.leaseId, nodeId: body.nodeId, workspaceId: principal.workspaceId, lock: 'update' });

      const offered = [...new Map(body.lines.map((l) => [l.seq, l])).values()].sort((a, b) => a.seq - b.seq);
      // A range over the (job, lease, agent seq) index, not an IN list: planned on a young job's
      // statistics, the list reads every row of the job instead.
      const seen = new Set<number>(
        offered.length
          ? await trx('job_logs')
              .where({ job_id: job.id, lease_id: body.leaseId })
              .whereBetween('agent_seq', [offered[0].seq, offered[offered.length - 1].seq])
              .pluck('agent_seq')
          : [],
      );
      // A line no newer than one already dropped was pushed before (or would be dropped now).
      const droppedUpTo: number = job.log_dropped_lease_id === body.leaseId ? job.log_dropped_agent_seq : -1;
      const fresh = offered.filter((l) => !seen.has(l.seq) && l.seq > droppedUpTo);
      if (fresh.length === 0) return { accepted: 0, duplicates: offered.length };

      const now = new Date().toISOString();
      // Stored to the millisecond, as it is read back: what a push hands its readers is what they would read.
      const lineRow = (l: Incoming, seq: number): LineRow => ({
        seq, agent_seq: l.line.seq, stream: l.line.stream, line: l.line.line, ts: l.line.ts ? new Date(l.line.ts).toISOString() : now, bytes: l.bytes,
      });
      let seq: number = job.log_next_seq;
      let markerSeq: number | null = job.log_truncated_seq;
      let tailStart: number = job.log_tail_start_seq ?? seq;
      let headBytes: number = job.log_head_bytes;
      let tailBytes: number = job.log_tail_bytes;
      const incoming: Incoming[] = fresh.map((line) => ({ line, bytes: Buffer.byteLength(line.line, 'utf8') }));
      const shape = { headLines: (markerSeq ?? seq) - 1, headBytes, marked: markerSeq !== null, tailLines: markerSeq === null ? 0 : seq - tailStart, tailBytes };
      const plan = planPush(budget, shape, incoming.map((l) => l.bytes));

      const rows: LineRow[] = [];
      for (const l of incoming.slice(0, plan.head)) {
        headBytes += l.bytes;
        rows.push(lineRow(l, seq++));
      }
      if (plan.openMarker) {
        markerSeq = seq++;
        tailStart = seq;
        await trx('job_logs').insert({ job_id: job.id, seq: markerSeq, kind: 'truncated', ts: now, bytes: 0, data: JSON.stringify({ droppedLines: 0, droppedBytes: 0 }) });
      }
      const dropped = { lines: 0, bytes: 0, agentSeq: droppedUpTo };
      for (const l of incoming.slice(plan.head, plan.head + plan.unstored)) {
        dropped.lines++;
        dropped.bytes += l.bytes;
        dropped.agentSeq = Math.max(dropped.agentSeq, l.line.seq);
      }
      if (plan.trim) {
        const gone = await dropOldestTail(trx, { jobId: job.id, leaseId: body.leaseId, tailStart, tailLines: shape.tailLines, excess: plan.trim });
        dropped.lines += gone.lines;
        dropped.bytes += gone.bytes;
        dropped.agentSeq = Math.max(dropped.agentSeq, gone.agentSeq);
        tailBytes -= gone.bytes;
        tailStart += gone.lines;
      }
      for (const l of incoming.slice(plan.head + plan.unstored)) {
        tailBytes += l.bytes;
        rows.push(lineRow(l, seq++));
      }

      // The batch as one JSON parameter: a statement of fixed size, whatever the number of lines
      // (a VALUES list of 5000 rows is 45000 parameters to build, send and parse).
      if (rows.length > 0) {
        await trx.raw(
          `INSERT INTO job_logs (job_id, seq, kind, lease_id, agent_seq, stream, line, ts, bytes)
           SELECT ?, r.seq, 'line', ?, r.agent_seq, r.stream, r.line, r.ts, r.bytes
           FROM json_to_recordset(?::json) AS r(seq bigint, agent_seq integer, stream text, line text, ts timestamptz, bytes integer)`,
          [job.id, body.leaseId, JSON.stringify(rows)],
        );
      }
      if (dropped.lines > 0) {
        await trx('job_logs')
          .where({ job_id: job.id, seq: markerSeq! })
          .update({
            data: trx.raw(
              `jsonb_build_object('droppedLines', (data->>'droppedLines')::bigint + ?, 'droppedBytes', (data->>'droppedBytes')::bigint + ?)`,
              [dropped.lines, dropped.bytes],
            ),
          });
      }
      await trx('jobs')
        .where({ id: job.id })
        .update({
          log_next_seq: seq,
          log_head_bytes: headBytes,
          log_tail_bytes: tailBytes,
          log_truncated_seq: markerSeq,
          log_tail_start_seq: markerSeq === null ? null : tailStart,
          ...(dropped.agentSeq > droppedUpTo && { log_dropped_lease_id: body.leaseId, log_dropped_agent_seq: dropped.agentSeq }),
        });
      await trx.raw('SELECT pg_notify(?, ?)', [NOTIFY.jobLogs, `${job.id} ${seq - 1}`]);
      // Appended after what was stored before, with no marker in between: readers on this instance
      // can take these rows as they are, without reading them back.
      const stored = !plan.openMarker && rows.length > 0
        ? { jobId: job.id, after: rows[0].seq - 1, events: rows.map((r): LogEvent => ({ kind: 'line', seq: r.seq, stream: r.stream, line: r.line, ts: r.ts })) }
        : undefined;
      return { accepted: fresh.length, duplicates: offered.length - fresh.length, stored };
    });
  }

  /**
   * Deletes the oldest tail rows until `excess` lines and cost are gone. Each row costs at least
   * the overhead, so no more than ceil(excess cost / overhead) rows can be needed: only that
   * primary-key range from the tail's start is read and deleted, never the whole tail. Two plain
   * range statements rather than one with a join, whose plan could turn quadratic.
   */
  async function dropOldestTail(
    trx: Knex.Transaction,
    o: { jobId: string; leaseId: string; tailStart: number; tailLines: number; excess: { lines: number; cost: number } },
  ): Promise<{ lines: number; bytes: number; agentSeq: number }> {
    const reach = Math.min(o.tailLines, Math.max(o.excess.lines, Math.ceil(o.excess.cost / budget.overhead)));
    const oldest: Array<{ bytes: number; lease_id: string; agent_seq: number }> = await trx('job_logs')
      .where({ job_id: o.jobId })
      .where('seq', '>=', o.tailStart)
      .where('seq', '<', o.tailStart + reach)
      .orderBy('seq')
      .select('bytes', 'lease_id', 'agent_seq');
    const gone = { lines: 0, bytes: 0, agentSeq: -1 };
    for (const row of oldest) {
      if (gone.lines >= o.excess.lines && costOf(budget, gone.lines, gone.bytes) >= o.excess.cost) break;
      gone.lines++;
      gone.bytes += row.bytes;
      if (row.lease_id === o.leaseId) gone.agentSeq = Math.max(gone.agentSeq, row.agent_seq);
    }
    await trx('job_logs')
      .where({ job_id: o.jobId })
      .where('seq', '>=', o.tailStart)
      .where('seq', '<', o.tailStart + gone.lines)
      .delete();
    return gone;
  }

  /**
   * Events after `afterSeq`, oldest first: up to `maxRows` rows and `maxBytes` of line text (at
   * least one row, however long). The text of rows past the page never leaves the database.
   */
  async function read(jobId: string, afterSeq: number, page: Partial<typeof LOG_PAGE> = {}): Promise<LogPage> {
    const { maxRows, maxBytes } = { ...LOG_PAGE, ...page };
    const job = await db('jobs').where({ id: jobId }).first('log_next_seq', 'log_truncated_seq', 'log_tail_start_seq', 'state', 'exit_code');
    if (!job) return { events: [], full: false, job: null };
    // Seqs are dense but for the lines dropped between the marker and the tail: skip those, and
    // read a bounded seq range, so a flooded job's page never costs more than the page (a plan
    // on stale statistics would otherwise scan and sort the rest of the log).
    const from = job.log_truncated_seq !== null && afterSeq >= job.log_truncated_seq ? Math.max(afterSeq, job.log_tail_start_seq - 1) : afterSeq;
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
          ? { kind: 'truncated', seq: r.seq, droppedLines: Number(r.data.droppedLines), droppedBytes: Number(r.data.droppedBytes), ts: new Date(r.ts).toISOString() }
          : { kind: 'line', seq: r.seq, stream: r.stream, line: r.line, ts: new Date(r.ts).toISOString() },
      );
    // Cut by a cap, or the range ended at the marker's gap with the tail still to come.
    return { events, full: events.length < rows.length || to < job.log_next_seq - 1, job: { state: job.state, exitCode: job.exit_code } };
  }

  return {
    push,
    read,
    /** Lines stored by pushes through this instance, after their commit (see StoredLines). */
    onStored(fn: (s: StoredLines) => void): () => void {
      storedListeners.add(fn);
      return () => storedListeners.delete(fn);
    },
  };
}

export type LogsService = ReturnType<typeof createLogsService>;
