import type { Knex } from 'knex';
import { decodeCursor, pageOf } from '../shared/cursor';
import { jobFromRow, type Job } from './record';
import type { JobListFilter } from './schemas';

// Newest first.

export async function listJobs(db: Knex, workspaceId: string, f: JobListFilter): Promise<{ jobs: Job[]; nextCursor: string | null }> {
  const q = db('jobs').where({ workspace_id: workspaceId, workflow_started: true });
  if (f.states?.length) q.whereIn('state', f.states);
  if (f.labels && Object.keys(f.labels).length) q.whereRaw('labels @> ?::jsonb', [JSON.stringify(f.labels)]);
  if (f.createdAfter) q.where('created_at', '>', f.createdAfter);
  if (f.createdBefore) q.where('created_at', '<', f.createdBefore);
  if (f.cursor) q.where('id', '<', decodeCursor(f.cursor, 'job'));
  const page = pageOf(await q.orderBy('id', 'desc').limit(f.limit + 1), f.limit, jobFromRow);
  return { jobs: page.items, nextCursor: page.nextCursor };
}
