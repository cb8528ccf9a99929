import type { Knex } from 'knex';

// Workspaces a user may create are bounded (WORKSPACES_CREATED_MAX): each remembers who created
// it. Those made before are found by their audit entry; personal workspaces count for no one.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workspaces', (t) => {
    t.text('created_by_user_id').references('users.id');
  });
  await knex.raw(`UPDATE workspaces w SET created_by_user_id = a.actor_id
    FROM audit_log a
    WHERE a.action = 'workspace.create' AND a.outcome = 'success' AND a.actor_type = 'user'
      AND a.target_id = w.id AND w.personal_user_id IS NULL`);
  await knex.raw(
    'CREATE INDEX workspaces_created_by ON workspaces (created_by_user_id) WHERE created_by_user_id IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS workspaces_created_by');
  await knex.schema.alterTable('workspaces', (t) => t.dropColumn('created_by_user_id'));
}
