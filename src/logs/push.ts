import type { Knex } from 'knex';
import type { ApiConfig } from '../config';
import { NOTIFY } from '../db/channels';
import { type AskingNode, askableBy, holdsLease } from '../jobs/lease';
import type { Turns } from '../jobs/turns';
import { logLinesIngested } from '../metrics/registry';
import { notAssigned, notFound } from '../shared/errors';
import { costOf, logBudgetOf, planPush } from './budget';
import type { LogEvent } from './read';

export interface PushedLine {
  seq: number;
  stream: 'stdout' | 'stderr';
  line: string;
  ts?: string;
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
 * The job a push appends to, locked (pushes of one job queue on it, so seqs go out in commit
 * order, and the lease it checks cannot move until the push commits), with its log state
 * (`job_log_state`, which this domain owns; defaults for a job that has logged nothing).
 */
async function lockedWithLogState(trx: Knex.Transaction, node: AskingNode, q: { jobId: string; leaseId: string }) {
  const job = await trx('jobs as j')
    .leftJoin('job_log_state as s', 's.job_id', 'j.id')
    .where({ 'j.id': q.jobId })
    .where(askableBy(node, 'j'))
    .forUpdate('j')
    .first(
      'j.id',
      'j.state',
      'j.lease_id',
      'j.agent_id',
      'j.log_followed',
      trx.raw('coalesce(s.next_seq, 1)::bigint AS log_next_seq'),
      trx.raw('coalesce(s.head_bytes, 0)::bigint AS log_head_bytes'),
      trx.raw('coalesce(s.tail_bytes, 0)::bigint AS log_tail_bytes'),
      's.truncated_seq AS log_truncated_seq',
      's.tail_start_seq AS log_tail_start_seq',
      's.dropped_lease_id AS log_dropped_lease_id',
      's.dropped_agent_seq AS log_dropped_agent_seq',
    );
  if (!job) throw notFound('job');
  if (!holdsLease(job, q.leaseId, node.id)) throw notAssigned();
  return job;
}

/**
 * Job logs in PostgreSQL, one row per line with a job-wide seq (the SSE event ID). The agent's
 * own seq per lease makes pushes idempotent. Each line costs its bytes plus a fixed row overhead
 * and a job keeps a bounded number of lines: past either budget the first half keeps the head,
 * the second a rolling tail, and one `truncated` marker between them counts what was dropped.
 *
 * Seqs are handed out without gaps and only the oldest tail lines are deleted, so the head is
 * seqs [1, marker) and the tail [tail_start_seq, next_seq) of job_log_state: trimming deletes
 * by primary-key range from the tail's start, as many rows as the push's own excess needs.
 */
export function createLogPush({
  db,
  config,
  turns,
}: {
  db: Knex;
  config: Pick<ApiConfig, 'limits'>;
  turns: Pick<Turns, 'push'>;
}) {
  const budget = logBudgetOf(config.limits);
  const storedListeners = new Set<(s: StoredLines) => void>();

  /** Lines from `node` (its row, as requireWorkingNode read it) for the job its lease holds. */
  async function push(node: AskingNode, body: { jobId: string; leaseId: string; lines: PushedLine[] }) {
    // In its turn: a job flooding its log waits while other agents' jobs are handed out and finish.
    const out = await turns.push(body.jobId, body.lines.length, () => pushTransaction(node, body));
    logLinesIngested.inc(out.accepted);
    if (out.stored) for (const fn of storedListeners) fn(out.stored);
    return { accepted: out.accepted, duplicates: out.duplicates };
  }

  function pushTransaction(node: AskingNode, body: { jobId: string; leaseId: string; lines: PushedLine[] }) {
    return db.transaction(async (trx): Promise<{ accepted: number; duplicates: number; stored?: StoredLines }> => {
      // The exclusive lock serializes pushes per job, so seqs are assigned in commit order.
      const job = await lockedWithLogState(trx, node, { jobId: body.jobId, leaseId: body.leaseId });

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
        seq,
        agent_seq: l.line.seq,
        stream: l.line.stream,
        line: l.line.line,
        ts: l.line.ts ? new Date(l.line.ts).toISOString() : now,
        bytes: l.bytes,
      });
      let seq: number = job.log_next_seq;
      let markerSeq: number | null = job.log_truncated_seq;
      let tailStart: number = job.log_tail_start_seq ?? seq;
      let headBytes: number = job.log_head_bytes;
      let tailBytes: number = job.log_tail_bytes;
      const incoming: Incoming[] = fresh.map((line) => ({ line, bytes: Buffer.byteLength(line.line, 'utf8') }));
      const shape = {
        headLines: (markerSeq ?? seq) - 1,
        headBytes,
        marked: markerSeq !== null,
        tailLines: markerSeq === null ? 0 : seq - tailStart,
        tailBytes,
      };
      const plan = planPush(
        budget,
        shape,
        incoming.map((l) => l.bytes),
      );

      const rows: LineRow[] = [];
      for (const l of incoming.slice(0, plan.head)) {
        headBytes += l.bytes;
        rows.push(lineRow(l, seq++));
      }
      if (plan.openMarker) {
        markerSeq = seq++;
        tailStart = seq;
        await trx('job_logs').insert({
          job_id: job.id,
          seq: markerSeq,
          kind: 'truncated',
          ts: now,
          bytes: 0,
          data: JSON.stringify({ droppedLines: 0, droppedBytes: 0 }),
        });
      }
      const dropped = { lines: 0, bytes: 0, agentSeq: droppedUpTo };
      for (const l of incoming.slice(plan.head, plan.head + plan.unstored)) {
        dropped.lines++;
        dropped.bytes += l.bytes;
        dropped.agentSeq = Math.max(dropped.agentSeq, l.line.seq);
      }
      if (plan.trim) {
        const gone = await dropOldestTail(trx, {
          jobId: job.id,
          leaseId: body.leaseId,
          tailStart,
          tailLines: shape.tailLines,
          excess: plan.trim,
        });
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
      await trx('job_log_state')
        .insert({
          job_id: job.id,
          next_seq: seq,
          head_bytes: headBytes,
          tail_bytes: tailBytes,
          truncated_seq: markerSeq,
          tail_start_seq: markerSeq === null ? null : tailStart,
          ...(dropped.agentSeq > droppedUpTo && {
            dropped_lease_id: body.leaseId,
            dropped_agent_seq: dropped.agentSeq,
          }),
        })
        .onConflict('job_id')
        .merge();
      // Only a followed job's lines are NOTIFYed, as its end is (src/jobs/log-follows.ts): the job's
      // row lock above orders this read against a follower's mark.
      if (job.log_followed) await trx.raw('SELECT pg_notify(?, ?)', [NOTIFY.jobLogs, `${job.id} ${seq - 1}`]);
      // Appended after what was stored before, with no marker in between: readers on this instance
      // can take these rows as they are, without reading them back.
      const stored =
        !plan.openMarker && rows.length > 0
          ? {
              jobId: job.id,
              after: rows[0].seq - 1,
              events: rows.map((r): LogEvent => ({
                kind: 'line',
                seq: r.seq,
                stream: r.stream,
                line: r.line,
                ts: r.ts,
              })),
            }
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
    o: {
      jobId: string;
      leaseId: string;
      tailStart: number;
      tailLines: number;
      excess: { lines: number; cost: number };
    },
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

  return {
    push,
    /** Lines stored by pushes through this instance, after their commit (see StoredLines). */
    onStored(fn: (s: StoredLines) => void): () => void {
      storedListeners.add(fn);
      return () => storedListeners.delete(fn);
    },
  };
}
