import type { Knex } from 'knex';
import { type JobRecord, TERMINAL } from '../drain';
import type { Submitted } from '../workload';
import type { Finding } from './finding';

// Every acknowledged job reached exactly one terminal state: the API shows it terminal (else it is
// lost), and no Idempotency-Key made a second job, whether the API said so (a replay answered
// with another ID) or the database holds it (two jobs labelled with one key).

export async function checkJobs(
  db: Knex,
  workspaceId: string,
  jobs: Submitted[],
  records: Map<string, JobRecord>,
): Promise<{ lost: Finding[]; doubled: Finding[] }> {
  const lost: Finding[] = [];
  const doubled: Finding[] = [];
  for (const job of jobs) {
    if (!job.id) continue;
    const record = records.get(job.id);
    if (!record) lost.push({ jobId: job.id, what: `${job.kind}: never read back through the API` });
    else if (!TERMINAL.includes(record.state))
      lost.push({ jobId: job.id, what: `${job.kind}: still ${record.state} after the drain` });
    for (const other of job.otherIds)
      doubled.push({ jobId: job.id, what: `the replay of key ${job.key} answered another job, ${other}` });
  }
  const { rows } = await db.raw(
    `SELECT labels->>'soak-key' AS key, array_agg(id ORDER BY id) AS ids FROM jobs
     WHERE workspace_id = ? AND workflow_started GROUP BY 1 HAVING count(*) > 1`,
    [workspaceId],
  );
  for (const r of rows as { key: string; ids: string[] }[])
    doubled.push({ jobId: r.ids[0], what: `key ${r.key} made ${r.ids.length} jobs: ${r.ids.join(' ')}` });
  const byKey = new Map(jobs.map((j) => [j.key, j]));
  const { rows: keyed } = await db.raw(
    `SELECT labels->>'soak-key' AS key, id FROM jobs WHERE workspace_id = ? AND workflow_started`,
    [workspaceId],
  );
  for (const r of keyed as { key: string; id: string }[]) {
    const acked = byKey.get(r.key);
    if (acked?.id && acked.id !== r.id)
      doubled.push({ jobId: r.id, what: `key ${r.key} was acknowledged as ${acked.id}, yet ${r.id} exists` });
  }
  return { lost, doubled };
}
