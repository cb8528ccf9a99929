import type { Knex } from 'knex';
import type { Config } from '../config';
import { NOTIFY } from '../db/channels';
import type { Principal } from '../auth/principal';
import { notAssigned, notFound } from '../shared/errors';

export interface PushedLine {
  seq: number;
  stream: 'stdout' | 'stderr';
  line: string;
  ts?: string;
}

export type LogEvent =
  | { kind: 'line'; seq: number; stream: string; line: string; ts: string }
  | { kind: 'truncated'; seq: number; droppedLines: number; droppedBytes: number; ts: string };

/**
 * Job logs in PostgreSQL, one row per line with a job-wide seq (the SSE event ID). The agent's
 * own seq per lease makes pushes idempotent. Past the per-job limit, the first half of the budget
 * keeps the head, the second a rolling tail, and one `truncated` marker between them counts
 * what was dropped.
 */
export function createLogsService({ db, config }: { db: Knex; config: Config }) {
  const halfBudget = Math.floor(config.limits.logBytesPerJob / 2);

  async function push(principal: Principal, body: { nodeId: string; jobId: string; leaseId: string; lines: PushedLine[] }) {
    return db.transaction(async (trx) => {
      // Locking the job row serializes pushes per job, so seqs are assigned in commit order.
      const job = await trx('jobs').where({ id: body.jobId, workspace_id: principal.workspaceId }).forUpdate().first();
      if (!job) throw notFound('job');
      const live = job.state === 'RUNNING' || job.state === 'CANCELLING';
      const attempt = await trx('job_attempts').where({ lease_id: body.leaseId, job_id: body.jobId }).first();
      if (!live || job.lease_id !== body.leaseId || attempt?.agent_id !== body.nodeId) throw notAssigned();

      const offered = [...new Map(body.lines.map((l) => [l.seq, l])).values()].sort((a, b) => a.seq - b.seq);
      const seen = new Set<number>(
        offered.length
          ? await trx('job_logs').where({ job_id: job.id, lease_id: body.leaseId }).whereIn('agent_seq', offered.map((l) => l.seq)).pluck('agent_seq')
          : [],
      );
      const fresh = offered.filter((l) => !seen.has(l.seq));
      if (fresh.length === 0) return { accepted: 0, duplicates: offered.length };

      let seq: number = job.log_next_seq;
      let headBytes: number = job.log_head_bytes;
      let tailBytes: number = job.log_tail_bytes;
      let markerSeq: number | null = job.log_truncated_seq;
      const rows = [];
      for (const l of fresh) {
        const bytes = Buffer.byteLength(l.line, 'utf8');
        if (markerSeq === null && headBytes + bytes > halfBudget) {
          markerSeq = seq++;
          rows.push({ job_id: job.id, seq: markerSeq, kind: 'truncated', ts: new Date().toISOString(), bytes: 0, data: JSON.stringify({ droppedLines: 0, droppedBytes: 0 }) });
        }
        if (markerSeq === null) headBytes += bytes;
        else tailBytes += bytes;
        rows.push({ job_id: job.id, seq: seq++, kind: 'line', lease_id: body.leaseId, agent_seq: l.seq, stream: l.stream, line: l.line, ts: l.ts ?? new Date().toISOString(), bytes });
      }
      for (let i = 0; i < rows.length; i += 1000) await trx('job_logs').insert(rows.slice(i, i + 1000));
      if (markerSeq !== null && tailBytes > halfBudget) tailBytes -= await dropOldestTail(trx, job.id, markerSeq, tailBytes - halfBudget);
      await trx('jobs').where({ id: job.id }).update({ log_next_seq: seq, log_head_bytes: headBytes, log_tail_bytes: tailBytes, log_truncated_seq: markerSeq });
      await trx.raw('SELECT pg_notify(?, ?)', [NOTIFY.jobLogs, job.id]);
      return { accepted: fresh.length, duplicates: offered.length - fresh.length };
    });
  }

  /** Deletes the oldest tail lines until `excess` bytes are gone; returns the bytes dropped. */
  async function dropOldestTail(trx: Knex.Transaction, jobId: string, markerSeq: number, excess: number): Promise<number> {
    const { rows } = await trx.raw(
      `WITH tail AS (
         SELECT seq, bytes, sum(bytes) OVER (ORDER BY seq) - bytes AS before
         FROM job_logs WHERE job_id = ? AND seq > ? AND kind = 'line'),
       gone AS (
         DELETE FROM job_logs l USING tail t
         WHERE l.job_id = ? AND l.seq = t.seq AND t.before < ? RETURNING l.bytes)
       SELECT count(*)::int AS lines, coalesce(sum(bytes), 0)::bigint AS bytes FROM gone`,
      [jobId, markerSeq, jobId, excess],
    );
    const dropped = { lines: Number(rows[0].lines), bytes: Number(rows[0].bytes) };
    await trx('job_logs')
      .where({ job_id: jobId, seq: markerSeq })
      .update({
        data: trx.raw(
          `jsonb_build_object('droppedLines', (data->>'droppedLines')::bigint + ?, 'droppedBytes', (data->>'droppedBytes')::bigint + ?)`,
          [dropped.lines, dropped.bytes],
        ),
      });
    return dropped.bytes;
  }

  /** Events after `afterSeq`, oldest first. */
  async function read(jobId: string, afterSeq: number, limit: number): Promise<LogEvent[]> {
    const rows = await db('job_logs').where({ job_id: jobId }).where('seq', '>', afterSeq).orderBy('seq').limit(limit);
    return rows.map((r) =>
      r.kind === 'truncated'
        ? { kind: 'truncated', seq: r.seq, droppedLines: Number(r.data.droppedLines), droppedBytes: Number(r.data.droppedBytes), ts: new Date(r.ts).toISOString() }
        : { kind: 'line', seq: r.seq, stream: r.stream, line: r.line, ts: new Date(r.ts).toISOString() },
    );
  }

  return { push, read };
}

export type LogsService = ReturnType<typeof createLogsService>;
