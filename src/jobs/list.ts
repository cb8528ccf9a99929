import type { Knex } from 'knex';
import { prepared } from '../db/prepared';
import { decodeCursor, pageOf } from '../shared/cursor';
import { JOB_COLUMNS, jobFromRow, type Job } from './record';
import type { JobListFilter } from './schemas';

// Newest first. One prepared statement per combination of filters (at most 32), so a list costs
// its one statement's execution, not a parse and a plan each time.

const FILTERS = [
  { key: 'states', sql: (n: number) => `state = ANY($${n})` },
  { key: 'labels', sql: (n: number) => `labels @> $${n}::jsonb` },
  { key: 'createdAfter', sql: (n: number) => `created_at > $${n}` },
  { key: 'createdBefore', sql: (n: number) => `created_at < $${n}` },
  { key: 'cursor', sql: (n: number) => `id < $${n}` },
] as const;

export function createJobLister(db: Knex) {
  const statements = new Map<number, ReturnType<typeof prepared>>();
  const statementFor = (shape: number) => {
    let run = statements.get(shape);
    if (!run) {
      const used = FILTERS.filter((_, i) => shape & (1 << i));
      const where = used.map((f, i) => ` AND ${f.sql(i + 2)}`).join('');
      const text = `SELECT ${JOB_COLUMNS} FROM jobs WHERE workspace_id = $1 AND workflow_started${where} ORDER BY id DESC LIMIT $${used.length + 2}`;
      run = prepared(`jobs_list_${shape}`, text);
      statements.set(shape, run);
    }
    return run;
  };

  return async function listJobs(
    workspaceId: string,
    f: JobListFilter,
  ): Promise<{ jobs: Job[]; nextCursor: string | null }> {
    const values: Record<(typeof FILTERS)[number]['key'], unknown> = {
      states: f.states?.length ? f.states : undefined,
      labels: f.labels && Object.keys(f.labels).length ? JSON.stringify(f.labels) : undefined,
      createdAfter: f.createdAfter,
      createdBefore: f.createdBefore,
      cursor: f.cursor ? decodeCursor(f.cursor, 'job', f.cursorParam) : undefined,
    };
    let shape = 0;
    const params: unknown[] = [workspaceId];
    FILTERS.forEach((filter, i) => {
      if (values[filter.key] === undefined) return;
      shape |= 1 << i;
      params.push(values[filter.key]);
    });
    params.push(f.limit + 1);
    const page = pageOf(await statementFor(shape)(db, params), f.limit, jobFromRow);
    return { jobs: page.items, nextCursor: page.nextCursor };
  };
}
