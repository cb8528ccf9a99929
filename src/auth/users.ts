import type { Knex } from 'knex';
import { newId } from '../shared/ids';
import type { Role } from './roles';

export interface User {
  id: string;
  email: string;
  workspaceId: string;
  createdAt: string;
}

/**
 * The user for an e-mail; on first login also their personal workspace, with them as owner. A
 * user added to a workspace before ever logging in has a row but no personal workspace yet.
 */
export async function findOrCreateUser(
  trx: Knex.Transaction,
  email: string,
): Promise<{ user: User; created: boolean }> {
  const { row, created } = await userByEmail(trx, email);
  await trx('users').where({ id: row.id }).update({ last_login_at: trx.fn.now() });
  let ws = await trx('workspaces').where({ personal_user_id: row.id }).first('id');
  if (!ws) {
    const workspaceId = newId('ws');
    const inserted = await trx('workspaces')
      .insert({ id: workspaceId, name: `${email.split('@')[0]}'s workspace`, personal_user_id: row.id })
      .onConflict('personal_user_id')
      .ignore()
      .returning('id');
    if (inserted[0])
      await trx('workspace_members').insert({ workspace_id: workspaceId, user_id: row.id, role: 'owner' });
    ws = inserted[0] ?? (await trx('workspaces').where({ personal_user_id: row.id }).first('id'));
  }
  return {
    user: { id: row.id, email: row.email, workspaceId: ws.id, createdAt: new Date(row.created_at).toISOString() },
    created,
  };
}

/** The user row for an e-mail (lower-cased by the caller), made if there is none. */
export async function userByEmail(
  db: Knex | Knex.Transaction,
  email: string,
): Promise<{ row: { id: string; email: string; created_at: Date }; created: boolean }> {
  const existing = await db('users').where({ email }).first();
  if (existing) return { row: existing, created: false };
  const inserted = await db('users')
    .insert({ id: newId('usr'), email })
    .onConflict('email')
    .ignore()
    .returning('*');
  return inserted[0]
    ? { row: inserted[0], created: true }
    : { row: await db('users').where({ email }).first(), created: false };
}

/** The user's role in the workspace now; null when they are not (or no longer) a member. */
export async function roleOf(db: Knex, userId: string, workspaceId: string): Promise<Role | null> {
  const row = await db('workspace_members').where({ user_id: userId, workspace_id: workspaceId }).first('role');
  return (row?.role as Role | undefined) ?? null;
}
