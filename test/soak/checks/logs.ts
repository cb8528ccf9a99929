import type { Knex } from 'knex';
import type { SoakClient } from '../client';
import type { JobRecord } from '../drain';
import { LONG_LINES } from '../workload';
import type { Finding } from './finding';

// Log lines are stored once and in order. The long jobs print `line 1` … `line N`: each attempt's
// stored lines (in the job's seq order) are a prefix 1..k of them, with no gap, repeat or swap
// (an attempt cut short keeps what was acknowledged, a prefix), in the agent's own order; the last
// attempt of a job that succeeded has all N. Read from the database, and through the API.

const NUMBERED = /^line (\d+)$/;

export async function checkLogs(
  db: Knex,
  client: SoakClient,
  workspaceId: string,
  records: Map<string, JobRecord>,
): Promise<Finding[]> {
  const found: Finding[] = [];
  const { rows } = await db.raw(
    `SELECT l.job_id, l.lease_id, l.seq, l.agent_seq, l.line FROM job_logs l JOIN jobs j ON j.id = l.job_id
     WHERE j.workspace_id = ? AND j.labels->>'soak-kind' = 'long' AND l.kind = 'line'
     ORDER BY l.job_id, l.seq`,
    [workspaceId],
  );
  const byLease = new Map<string, { jobId: string; numbers: number[]; agentSeqs: number[] }>();
  for (const r of rows as { job_id: string; lease_id: string; agent_seq: number; line: string }[]) {
    const m = NUMBERED.exec(r.line);
    const entry = byLease.get(r.lease_id) ?? { jobId: r.job_id, numbers: [], agentSeqs: [] };
    byLease.set(r.lease_id, entry);
    entry.agentSeqs.push(r.agent_seq);
    if (m) entry.numbers.push(Number(m[1]));
  }
  for (const [lease, e] of byLease) {
    if (!isPrefix(e.numbers))
      found.push({ jobId: e.jobId, what: `attempt ${lease} stored lines ${e.numbers.join(',')}` });
    if (e.agentSeqs.some((s, i) => i > 0 && !(s > e.agentSeqs[i - 1])))
      found.push({ jobId: e.jobId, what: `attempt ${lease} stored agent seqs out of order: ${e.agentSeqs.join(',')}` });
  }
  const { rows: finals } = await db.raw(
    `SELECT j.id, j.lease_id FROM jobs j WHERE j.workspace_id = ? AND j.labels->>'soak-kind' = 'long' AND j.state = 'SUCCEEDED'`,
    [workspaceId],
  );
  for (const f of finals as { id: string; lease_id: string }[]) {
    const numbers = byLease.get(f.lease_id)?.numbers ?? [];
    if (numbers.length !== LONG_LINES)
      found.push({ jobId: f.id, what: `succeeded with ${numbers.length} of its ${LONG_LINES} lines stored` });
    const read = await linesThroughApi(client, f.id);
    if (!records.has(f.id)) continue;
    // Through the API: the last attempt's lines are the last `line 1` onwards.
    const last = read.lastIndexOf(1);
    const tail = last < 0 ? [] : read.slice(last);
    if (!isPrefix(tail) || tail.length !== LONG_LINES)
      found.push({ jobId: f.id, what: `the API's log ends with lines ${tail.join(',')}` });
  }
  return found;
}

const isPrefix = (numbers: number[]) => numbers.every((n, i) => n === i + 1);

/** The numbered lines of a job's log as GET /v0/jobs/{id}/logs pages them. */
async function linesThroughApi(client: SoakClient, jobId: string): Promise<number[]> {
  const numbers: number[] = [];
  let after = 0;
  for (let page = 0; page < 50; page++) {
    const read = await client.retried('GET', `/v0/jobs/${jobId}/logs?afterSeq=${after}&limit=500`);
    if (read.status !== 200) throw new Error(`logs of ${jobId} -> ${read.status}`);
    for (const l of read.body.lines as { line: string }[]) {
      const m = NUMBERED.exec(l.line);
      if (m) numbers.push(Number(m[1]));
    }
    if (read.body.complete || read.body.lines.length === 0) break;
    after = read.body.nextSeq;
  }
  return numbers;
}
