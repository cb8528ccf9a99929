import type { Knex } from 'knex';
import { type JobRecord, TERMINAL } from '../drain';
import type { Received } from '../../support/webhook-receiver';
import type { Finding } from './finding';

// Each terminal job's `job.terminal` event reached the soak's receiver (a delivery it answered
// 2xx, correctly signed), as one event: the same `webhook-id` on every retry, the same as the
// outbox's one row for it, and naming the state the API shows.

export async function checkWebhooks(
  db: Knex,
  workspaceId: string,
  records: Map<string, JobRecord>,
  received: Received[],
  verified: WeakSet<Received>,
): Promise<{ missing: Finding[]; doubled: Finding[] }> {
  const missing: Finding[] = [];
  const doubled: Finding[] = [];
  const byJob = new Map<string, Received[]>();
  for (const r of received) {
    if (r.event?.type !== 'job.terminal') continue;
    const id = r.event.data?.job?.id as string;
    byJob.set(id, [...(byJob.get(id) ?? []), r]);
  }
  const { rows } = await db.raw(
    `SELECT job_id, array_agg(id ORDER BY seq) AS ids FROM webhook_events
     WHERE workspace_id = ? AND type = 'job.terminal' GROUP BY job_id`,
    [workspaceId],
  );
  const stored = new Map((rows as { job_id: string; ids: string[] }[]).map((r) => [r.job_id, r.ids]));
  for (const record of records.values()) {
    if (!TERMINAL.includes(record.state)) continue;
    const jobId = record.id as string;
    const all = byJob.get(jobId) ?? [];
    const unsigned = all.filter((r) => !verified.has(r));
    if (unsigned.length) missing.push({ jobId, what: `${unsigned.length} delivery(ies) failed signature checks` });
    const good = all.filter((r) => verified.has(r));
    if (!good.some((r) => r.answered !== undefined && r.answered < 300))
      missing.push({ jobId, what: `no job.terminal delivered (${all.length} request(s) arrived)` });
    const ids = new Set(good.flatMap((r) => [r.headers['webhook-id'], r.event.id as string]));
    if (ids.size > 1) doubled.push({ jobId, what: `job.terminal arrived as events ${[...ids].join(' ')}` });
    const states = new Set(good.map((r) => r.event.data.job.state as string));
    if ([...states].some((s) => s !== record.state))
      doubled.push({ jobId, what: `job.terminal says ${[...states].join(', ')}, the API ${record.state}` });
    const outbox = stored.get(jobId) ?? [];
    if (outbox.length === 0) missing.push({ jobId, what: 'no job.terminal event in the outbox' });
    else if (outbox.length > 1)
      doubled.push({ jobId, what: `${outbox.length} job.terminal events in the outbox: ${outbox.join(' ')}` });
    else if (ids.size === 1 && !ids.has(outbox[0]))
      doubled.push({ jobId, what: `delivered ${[...ids][0]}, the outbox holds ${outbox[0]}` });
  }
  return { missing, doubled };
}
