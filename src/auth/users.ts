import type { Knex } from 'knex';
import { newId } from '../shared/ids';

export interface User {
  id: string;
  email: string;
  workspaceId: string;
  createdAt: string;
}

/** The user for an e-mail; on first login also their personal workspace, with them as owner. */
export async function findOrCreateUser(trx: Knex.Transaction, email: string): Promise<{ user: User; created: boolean }> {
  let created = false;
  let row = await trx('users').where({ email }).first();
  if (!row) {
    const id = newId('usr');
    const inserted = await trx('users').insert({ id, email }).onConflict('email').ignore().returning('*');
    row = inserted[0] ?? (await trx('users').where({ email }).first());
    if (inserted[0]) {
      const workspaceId = newId('ws');
      await trx('workspaces').insert({ id: workspaceId, name: `${email.split('@')[0]}'s workspace`, personal_user_id: id });
      await trx('workspace_members').insert({ workspace_id: workspaceId, user_id: id, role: 'owner' });
      created = true;
    }
  }
  await trx('users').where({ id: row.id }).update({ last_login_at: trx.fn.now() });
  const ws = await trx('workspaces').where({ personal_user_id: row.id }).first('id');
  return { user: { id: row.id, email: row.email, workspaceId: ws.id, createdAt: new Date(row.created_at).toISOString() }, created };
}

/** True while the user is still a member of the workspace their token names. */
export async function isMember(db: Knex, userId: string, workspaceId: string): Promise<boolean> {
  return Boolean(await db('workspace_members').where({ user_id: userId, workspace_id: workspaceId }).first('role'));
}
