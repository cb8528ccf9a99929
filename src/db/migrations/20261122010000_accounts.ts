import type { Knex } from 'knex';

// Accounts: users who log in by e-mailed code, their workspace memberships, the codes themselves,
// and the indexes that key quotas count against.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.text('id').primary();
    t.text('email').notNullable().unique(); // stored lower-cased
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_login_at', { useTz: true });
  });

  await knex.schema.createTable('workspace_members', (t) => {
    t.text('workspace_id').notNullable().references('workspaces.id');
    t.text('user_id').notNullable().references('users.id');
    t.text('role').notNullable().checkIn(['owner', 'admin', 'member']);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['workspace_id', 'user_id']);
    t.index(['user_id']);
  });
  await knex.schema.alterTable('workspaces', (t) => {
    // The workspace made for a user at first login; their token acts in it.
    t.text('personal_user_id').unique();
  });

  await knex.schema.createTable('otp_codes', (t) => {
    t.text('id').primary();
    t.text('email').notNullable();
    t.text('code_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.integer('failed_tries').notNullable().defaultTo(0);
    // Used, superseded by a newer code, or burned by too many tries: never valid again.
    t.timestamp('closed_at', { useTz: true });
    t.index(['email', 'created_at']);
  });

  await knex.schema.alterTable('api_keys', (t) => {
    t.text('user_id').references('users.id');
    t.index(['workspace_id', 'user_id']);
  });
  // rate-limiter-flexible's PostgreSQL store, in the shape that library expects.
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
  });
  // Quotas count a key's submissions in the last hour and its unfinished jobs.
  await knex.raw(
    'CREATE INDEX jobs_by_submit_key ON jobs (submitted_with_key_id, created_at) WHERE submitted_with_key_id IS NOT NULL',
  );
  await knex.raw(
    'CREATE INDEX agents_by_register_key ON agents (registered_with_key_id) WHERE registered_with_key_id IS NOT NULL',
  );
  await knex.raw('CREATE INDEX job_attempts_assigned ON job_attempts (agent_id, assigned_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS job_attempts_assigned');
  await knex.schema.dropTable('rate_limits');
  await knex.raw('DROP INDEX IF EXISTS agents_by_register_key');
  await knex.raw('DROP INDEX IF EXISTS jobs_by_submit_key');
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropIndex(['workspace_id', 'user_id']);
    t.dropColumn('user_id');
  });
  await knex.schema.dropTable('otp_codes');
  await knex.schema.alterTable('workspaces', (t) => t.dropColumn('personal_user_id'));
  await knex.schema.dropTable('workspace_members');
  await knex.schema.dropTable('users');
}
