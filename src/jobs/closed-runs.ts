import type { Knex } from 'knex';
import type { JobWorkflowClient } from '../temporal/job-workflow-client';
import { TERMINAL_STATES } from '../../workflows/job-model';

export type RowRef = { id: string; workspace_id: string };

/**
 * The rows whose run closed since `since` without their row showing it, a page of runs at a time:
 * runs closed CANCELLED (a cancel of a queued job whose caller gave up before its write), and runs
 * terminated in Temporal (its UI, its CLI, a batch by query), whose jobs nothing else ends. Every
 * page of the visibility list is read, through its cursor: a batch that ends thousands of runs at
 * once leaves none behind a first page.
 */
export async function* rowsBehindClosedRuns(
  db: Knex,
  workflows: JobWorkflowClient,
  since: Date,
): AsyncGenerator<RowRef[]> {
  for await (const ids of workflows.closedSince(since, 'CANCELLED')) {
    yield await db('jobs').whereIn('id', ids).whereNot('state', 'CANCELLED').select('id', 'workspace_id');
  }
  for await (const ids of workflows.terminatedSince(since)) {
    yield await db('jobs').whereIn('id', ids).whereNotIn('state', TERMINAL_STATES).select('id', 'workspace_id');
  }
}
