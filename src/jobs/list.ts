import type { Knex } from 'knex';
import { AppError } from '../shared/errors';
import { jobFromRow, type Job } from './record';
import type { JobListFilter } from './schemas';

// Newest first. IDs are time-sortable, so the cursor is the last ID returned, kept opaque.
const encodeCursor = (id: string) => Buffer.from(id).toString('base64url');
function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString();
  if (!/^job_[0-9a-z]{26}$/.test(id)) throw new AppError('request.invalid', 'Invalid cursor', { fields: [{ path: 'cursor', message: 'not a cursor from this API' }] });
  return id;
}

export async function listJobs(db: Knex, workspaceId: string, f: JobListFilter): Promise<{ jobs: Job[]; nextCursor: string | null }> {
  const q = db('jobs').where({ workspace_id: workspaceId, workflow_started: true });
  if (f.states?.length) q.whereIn('state', f.states);
  if (f.labels && Object.keys(f.labels).length) q.whereRaw('labels @> ?::jsonb', [JSON.stringify(f.labels)]);
  if (f.createdAfter) q.where('created_at', '>', f.createdAfter);
  if (f.createdBefore) q.where('created_at', '<', f.createdBefore);
  if (f.cursor) q.where('id', '<', decodeCursor(f.cursor));
  const rows = await q.orderBy('id', 'desc').limit(f.limit + 1);
  const jobs = rows.slice(0, f.limit).map(jobFromRow);
  const more = rows.length > f.limit;
  return { jobs, nextCursor: more ? encodeCursor(jobs[jobs.length - 1].id) : null };
}
