import type { Knex } from 'knex';
import { newId } from '../shared/ids';

// Workspaces made straight in the database, outside any request: the operator's default one and
// those benches and tests make for themselves.

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

/**
 * The operator's workspace, made on first use: it owns the managed-pool keys and the agents
 * registered with them, so every credential and agent keeps a workspace. Nobody is a member of
 * it and no job is submitted in it; a managed-pool agent takes other workspaces' managed jobs.
 */
export async function ensureOperatorWorkspace(db: Knex): Promise<string> {
  const existing = await db('workspaces').where({ is_operator: true }).first('id');
  if (existing) return existing.id;
  await db('workspaces')
    .insert({ id: newId('ws'), name: 'managed pool (operator)', is_operator: true })
    .onConflict()
    .ignore();
  const row = await db('workspaces').where({ is_operator: true }).first('id');
  return row.id;
}
