import type { Knex } from 'knex';

// The managed pool (CONTRACT §9): agents run by the operator take `pool: managed` jobs of every
// workspace in their region. Managed-pool keys and the agents registered with them belong to the
// one operator workspace (no member, no jobs of its own), so every credential keeps a workspace.
// A managed job carries its region; the queue of each region is read by its own partial index,
// workspace by workspace, and the last hand-out per (region, workspace) decides whose turn it is.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workspaces', (t) => {
    t.boolean('is_operator').notNullable().defaultTo(false);
  });
  await knex.raw('CREATE UNIQUE INDEX workspaces_one_operator ON workspaces (is_operator) WHERE is_operator');

  await knex.raw('ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_kind_check');
  await knex.raw(
    "ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('user', 'agent', 'node', 'token', 'managed'))",
  );

  await knex.schema.alterTable('agents', (t) => {
    t.text('pool').notNullable().defaultTo('self');
    t.text('region');
  });
  await knex.raw(
    "ALTER TABLE agents ADD CONSTRAINT agents_pool_check CHECK (pool IN ('self', 'managed') AND (pool = 'managed') = (region IS NOT NULL))",
  );

  await knex.schema.alterTable('jobs', (t) => {
    t.text('region');
  });
  await knex.raw(
    "ALTER TABLE jobs ADD CONSTRAINT jobs_pool_check CHECK (pool IN ('self', 'managed') AND (pool = 'managed') = (region IS NOT NULL))",
  );
  // A region's managed queue, workspace by workspace in hand-out order: the distinct workspaces
  // are found by skipping through it, and each one's best job is its first matching entry.
  await knex.raw(
    `CREATE INDEX jobs_managed_queue ON jobs (region, workspace_id, priority DESC, created_at, id)
     WHERE state = 'QUEUED' AND workflow_started AND pool = 'managed'`,
  );
  // A workspace's own agents read only its self jobs: managed ones, however many, are not in their way.
  await knex.raw('DROP INDEX jobs_claimable');
  await knex.raw(
    `CREATE INDEX jobs_claimable ON jobs (priority DESC, created_at, id) WHERE state = 'QUEUED' AND workflow_started AND pool = 'self'`,
  );

  await knex.schema.createTable('managed_pool_turns', (t) => {
    t.text('region').notNullable();
    t.text('workspace_id').notNullable().references('workspaces.id');
    t.timestamp('served_at', { useTz: true }).notNullable();
    t.primary(['region', 'workspace_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('managed_pool_turns');
  await knex.raw('DROP INDEX jobs_claimable');
  await knex.raw(
    `CREATE INDEX jobs_claimable ON jobs (priority DESC, created_at, id) WHERE state = 'QUEUED' AND workflow_started`,
  );
  await knex.raw('DROP INDEX IF EXISTS jobs_managed_queue');
  await knex.raw('ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_pool_check');
  await knex.schema.alterTable('jobs', (t) => {
    t.dropColumn('region');
  });
  await knex.raw('ALTER TABLE agents DROP CONSTRAINT IF EXISTS agents_pool_check');
  await knex.schema.alterTable('agents', (t) => {
    t.dropColumn('region');
    t.dropColumn('pool');
  });
  await knex.raw("DELETE FROM api_keys WHERE kind = 'managed'");
  await knex.raw('ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_kind_check');
  await knex.raw(
    "ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('user', 'agent', 'node', 'token'))",
  );
  await knex.raw('DROP INDEX IF EXISTS workspaces_one_operator');
  await knex.schema.alterTable('workspaces', (t) => {
    t.dropColumn('is_operator');
  });
}
