import type { Knex } from 'knex';
import { newId } from '../shared/ids';
import type { WorkspaceSettings } from './credential-cache';

/** The workspace `npm run dev` and `compute admin keys create` use when none is named; made on first use. */
export async function ensureDefaultWorkspace(db: Knex): Promise<string> {
  const existing = await db('workspaces').where({ is_default: true }).first('id');
  if (existing) return existing.id;
  const id = newId('ws');
  await db('workspaces').insert({ id, name: 'default', is_default: true }).onConflict().ignore();
  const row = await db('workspaces').where({ is_default: true }).first('id');
  return row.id;
}

export async function createWorkspace(db: Knex, name: string): Promise<string> {
  const id = newId('ws');
  await db('workspaces').insert({ id, name });
  return id;
}

/** A workspace's plan and budget settings; null when there is no such workspace. */
export async function workspaceSettings(db: Knex, id: string): Promise<WorkspaceSettings | null> {
  const row = await db('workspaces').where({ id }).first('id', 'plan', 'requests_per_second', 'burst');
  return row ? { id: row.id, plan: row.plan, requestsPerSecond: row.requests_per_second, burst: row.burst } : null;
}
