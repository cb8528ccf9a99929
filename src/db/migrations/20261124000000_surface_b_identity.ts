import type { Knex } from 'knex';

// Surface B's identity: workspaces gain a region and a plan (whose request budget /v0 applies),
// personal access tokens are api_keys of kind `token` (so revocation reaches every instance's
// cache through the existing trigger) with a role and an expiry, and the audit log, which no
// statement may change or remove once written.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workspaces', (t) => {
    t.text('default_region').notNullable().defaultTo('local');
    t.text('plan')
      .notNullable()
      .defaultTo('hobby')
      .checkIn(['hobby', 'payg', 'team', 'enterprise'], 'workspaces_plan_check');
    // Enterprise only: its per-workspace request budget (null: unlimited).
    t.integer('requests_per_second');
    t.integer('burst');
  });
  // A workspace's plan and budget are cached per API instance, like credentials.
  await knex.raw(`
    CREATE FUNCTION compute_notify_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('compute_credentials', 'workspace:' || OLD.id);
      RETURN NULL;
    END $$`);
  await knex.raw(
    `CREATE TRIGGER workspaces_changed AFTER UPDATE OR DELETE ON workspaces FOR EACH ROW EXECUTE FUNCTION compute_notify_workspace()`,
  );

  await knex.raw('ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_kind_check');
  await knex.raw(
    "ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('user', 'agent', 'node', 'token'))",
  );
  await knex.schema.alterTable('api_keys', (t) => {
    t.text('role').checkIn(['owner', 'admin', 'member'], 'api_keys_role_check');
    t.timestamp('expires_at', { useTz: true });
  });
  await knex.raw(
    "ALTER TABLE api_keys ADD CONSTRAINT api_keys_token_shape CHECK ((kind = 'token') = (role IS NOT NULL AND user_id IS NOT NULL))",
  );

  await knex.schema.createTable('audit_log', (t) => {
    t.text('id').primary();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('workspace_id').notNullable();
    t.text('actor_type').notNullable().checkIn(['user', 'token', 'key', 'node', 'system']);
    t.text('actor_id').notNullable();
    t.text('actor_email');
    t.text('action').notNullable();
    t.text('target_type').notNullable();
    t.text('target_id').notNullable();
    t.text('outcome').notNullable().checkIn(['success', 'denied']);
    t.text('ip');
    t.text('user_agent');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.index(['workspace_id', 'id']);
  });
  // Append-only for everyone, the service included: a statement that would change or remove an
  // entry fails. (Retention, if ever, is an operator's job done with the trigger disabled.)
  await knex.raw(`
    CREATE FUNCTION compute_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$`);
  await knex.raw(
    'CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION compute_audit_append_only()',
  );
  await knex.raw(
    'CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION compute_audit_append_only()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS audit_log_no_truncate ON audit_log');
  await knex.raw('DROP TRIGGER IF EXISTS audit_log_no_update ON audit_log');
  await knex.schema.dropTable('audit_log');
  await knex.raw('DROP FUNCTION IF EXISTS compute_audit_append_only()');
  await knex.raw("DELETE FROM api_keys WHERE kind = 'token'");
  await knex.raw('ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_token_shape');
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('expires_at');
    t.dropColumn('role');
  });
  await knex.raw('ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_kind_check');
  await knex.raw("ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('user', 'agent', 'node'))");
  await knex.raw('DROP TRIGGER IF EXISTS workspaces_changed ON workspaces');
  await knex.raw('DROP FUNCTION IF EXISTS compute_notify_workspace()');
  await knex.schema.alterTable('workspaces', (t) => {
    t.dropColumn('burst');
    t.dropColumn('requests_per_second');
    t.dropColumn('plan');
    t.dropColumn('default_region');
  });
}
