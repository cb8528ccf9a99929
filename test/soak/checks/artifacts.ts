import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { SoakClient } from '../client';
import type { JobRecord } from '../drain';
import { ARTIFACT_NAME } from '../workload';
import type { Finding } from './finding';

// Every artifact acknowledged is downloadable, byte for byte. An attempt's upload was acknowledged
// when its agent logged `uploaded artifact …` (it does so on the API's 200): that attempt's
// artifact is on the job's record, with the sha256 the job itself printed for the file. Every
// artifact the record lists downloads through a presigned URL with the size and sha256 it names.

const PRINTED = /^sha256=([0-9a-f]{64})$/;
const UPLOADED = new RegExp(
  `^\\[compute-agent\\] uploaded artifact ${ARTIFACT_NAME} \\((\\d+) bytes, sha256 ([0-9a-f]{12})`,
);

export async function checkArtifacts(
  db: Knex,
  client: SoakClient,
  workspaceId: string,
  records: Map<string, JobRecord>,
): Promise<{ found: Finding[]; downloaded: number }> {
  const found: Finding[] = [];
  const { rows: lines } = await db.raw(
    `SELECT l.job_id, l.lease_id, l.line FROM job_logs l JOIN jobs j ON j.id = l.job_id
     WHERE j.workspace_id = ? AND j.labels->>'soak-kind' = 'artifact' AND l.kind = 'line' ORDER BY l.job_id, l.seq`,
    [workspaceId],
  );
  const printed = new Map<string, string>();
  const uploaded = new Map<string, { jobId: string; size: number; prefix: string }>();
  for (const l of lines as { job_id: string; lease_id: string; line: string }[]) {
    const p = PRINTED.exec(l.line);
    if (p) printed.set(l.lease_id, p[1]);
    const u = UPLOADED.exec(l.line);
    if (u) uploaded.set(l.lease_id, { jobId: l.job_id, size: Number(u[1]), prefix: u[2] });
  }
  const rows = (await db('artifacts')
    .join('jobs', 'jobs.id', 'artifacts.job_id')
    .where('jobs.workspace_id', workspaceId)
    .select('artifacts.job_id', 'artifacts.id', 'artifacts.lease_id', 'artifacts.sha256', 'artifacts.size')) as {
    job_id: string;
    id: string;
    lease_id: string;
    sha256: string;
    size: string;
  }[];
  for (const [lease, u] of uploaded) {
    const row = rows.find((r) => r.lease_id === lease);
    const listed = records.get(u.jobId)?.artifacts as { id: string; sha256: string }[] | undefined;
    if (!row) found.push({ jobId: u.jobId, what: `attempt ${lease}'s acknowledged upload has no artifact row` });
    else if (!row.sha256.startsWith(u.prefix) || Number(row.size) !== u.size)
      found.push({
        jobId: u.jobId,
        what: `artifact ${row.id} is ${row.size} bytes ${row.sha256}, acknowledged as ${u.size} ${u.prefix}…`,
      });
    else if (printed.has(lease) && printed.get(lease) !== row.sha256)
      found.push({
        jobId: u.jobId,
        what: `artifact ${row.id} has sha256 ${row.sha256}, the job printed ${printed.get(lease)}`,
      });
    else if (!listed?.some((a) => a.id === row.id))
      found.push({ jobId: u.jobId, what: `artifact ${row.id} is not on the job's record` });
  }
  let downloaded = 0;
  for (const record of records.values()) {
    for (const a of (record.artifacts ?? []) as { id: string; size: number; sha256: string }[]) {
      const problem = await download(client, record.id, a);
      downloaded++;
      if (problem) found.push({ jobId: record.id, what: `artifact ${a.id}: ${problem}` });
    }
  }
  return { found, downloaded };
}

/** What is wrong with the artifact's download, or undefined when its bytes are what the record says. */
async function download(
  client: SoakClient,
  jobId: string,
  a: { id: string; size: number; sha256: string },
): Promise<string | undefined> {
  const presigned = await client.retried('POST', '/api/compute/jobs/artifacts/presign-download', {
    job_id: jobId,
    id: a.id,
  });
  if (presigned.status !== 200) return `presign-download -> ${presigned.status} ${JSON.stringify(presigned.body)}`;
  const url = presigned.body.payload.url as string;
  for (let tries = 0; ; tries++) {
    const res = await fetch(url).catch(() => undefined);
    if (!res) {
      if (tries < 10) continue;
      return 'the download never answered';
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    client.count(res.status, res.headers, `GET artifact ${jobId}/${a.id}`);
    if ((res.status === 503 || res.status === 502) && tries < 10) {
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    if (res.status !== 200) return `download -> ${res.status} ${bytes.toString('utf8').slice(0, 200)}`;
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== a.sha256 || bytes.length !== a.size)
      return `downloaded ${bytes.length} bytes ${sha256}, the record says ${a.size} ${a.sha256}`;
    return undefined;
  }
}
