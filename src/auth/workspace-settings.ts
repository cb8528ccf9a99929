import type { Knex } from 'knex';
import type { WorkspaceSettings } from './credential-cache';

/** A workspace's plan and budget settings (what a request's budget needs); null when there is no such workspace. */
export async function workspaceSettings(db: Knex, id: string): Promise<WorkspaceSettings | null> {
  const row = await db('workspaces').where({ id }).first('id', 'plan', 'requests_per_second', 'burst');
  return row ? { id: row.id, plan: row.plan, requestsPerSecond: row.requests_per_second, burst: row.burst } : null;
}
