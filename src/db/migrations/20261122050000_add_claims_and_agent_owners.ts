import type { Knex } from 'knex';

// Claims reserve a queued row in a statement of their own, so no transaction stays open while the
// job's workflow is asked to accept the assignment. A node spends the request budget of the user
// who registered it, whether with a session token or with one of their keys.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.text('claimed_by');
    t.timestamp('claimed_until', { useTz: true });
  });
  await knex.schema.alterTable('agents', (t) => {
    t.text('registered_by_user_id').references('users.id');
  });
  // Quotas count the reservations in flight of a key's nodes beside their attempts.
  await knex.raw(`CREATE INDEX jobs_claimed ON jobs (claimed_by) WHERE claimed_by IS NOT NULL`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS jobs_claimed');
  await knex.schema.alterTable('agents', (t) => t.dropColumn('registered_by_user_id'));
  await knex.schema.alterTable('jobs', (t) => {
    t.dropColumn('claimed_until');
    t.dropColumn('claimed_by');
  });
}
