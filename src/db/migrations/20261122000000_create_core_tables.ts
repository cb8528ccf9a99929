import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workspaces', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.boolean('is_default').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // At most one default workspace: the one `npm run dev` and `compute keys create` use.
  await knex.raw('CREATE UNIQUE INDEX workspaces_one_default ON workspaces (is_default) WHERE is_default');

  await knex.schema.createTable('agents', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id');
    t.text('name').notNullable();
    t.jsonb('labels').notNullable().defaultTo('{}');
    t.jsonb('capabilities').notNullable().defaultTo('{}');
    t.text('version');
    t.text('registered_with_key_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_heartbeat_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.boolean('drain').notNullable().defaultTo(false);
    t.timestamp('drain_deadline_at', { useTz: true });
    t.index(['workspace_id', 'id']);
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id');
    t.text('prefix').notNullable().unique();
    t.text('secret_hash').notNullable();
    t.text('name').notNullable();
    t.text('kind').notNullable().checkIn(['user', 'agent', 'node']);
    t.text('agent_id').references('agents.id');
    t.jsonb('quotas');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
  });

  await knex.schema.createTable('jobs', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id');
    t.text('type').notNullable();
    t.text('command').notNullable();
    t.jsonb('env').notNullable().defaultTo('{}');
    t.jsonb('labels').notNullable().defaultTo('{}');
    t.jsonb('selector').notNullable().defaultTo('{}');
    t.jsonb('resources');
    t.text('pool').notNullable().defaultTo('self');
    t.jsonb('retry').notNullable();
    t.integer('priority').notNullable().defaultTo(3);
    t.jsonb('artifacts_spec');
    t.integer('timeout_seconds').notNullable();
    t.text('state').notNullable();
    t.integer('attempt').notNullable().defaultTo(1);
    t.text('lease_id');
    t.text('agent_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.integer('exit_code');
    t.bigInteger('runtime_ms');
    t.text('failure_reason');
    t.text('error');
    // A requeued job waits out its backoff before an agent may take it.
    t.timestamp('available_at', { useTz: true }).notNullable();
    // Projection order: a write with an older version than the row's is dropped.
    t.integer('version').notNullable().defaultTo(0);
    // False until the workflow exists: such a row is not yet acknowledged and is invisible.
    t.boolean('workflow_started').notNullable().defaultTo(false);
    t.text('submitted_with_key_id');
    t.bigInteger('log_next_seq').notNullable().defaultTo(1);
    t.bigInteger('log_head_bytes').notNullable().defaultTo(0);
    t.bigInteger('log_tail_bytes').notNullable().defaultTo(0);
    t.bigInteger('log_truncated_seq');
    t.index(['workspace_id', 'id']);
  });
  await knex.raw(
    `CREATE INDEX jobs_claimable ON jobs (priority DESC, created_at, id) WHERE state = 'QUEUED' AND workflow_started`,
  );
  await knex.raw('CREATE INDEX jobs_labels ON jobs USING gin (labels jsonb_path_ops)');
  await knex.raw('CREATE INDEX jobs_unstarted ON jobs (created_at) WHERE NOT workflow_started');

  await knex.schema.createTable('job_attempts', (t) => {
    t.text('lease_id').primary();
    t.text('job_id').notNullable().references('jobs.id');
    t.integer('attempt').notNullable();
    t.text('agent_id').notNullable().references('agents.id');
    t.timestamp('assigned_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_heartbeat_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('ended_at', { useTz: true });
    t.text('end_reason');
    // The agent must stop this attempt's process (cancel, timeout, reassignment).
    t.boolean('kill_requested').notNullable().defaultTo(false);
    t.jsonb('result');
    t.index(['job_id']);
    t.index(['agent_id', 'ended_at']);
  });

  await knex.schema.createTable('job_logs', (t) => {
    t.text('job_id').notNullable().references('jobs.id');
    t.bigInteger('seq').notNullable();
    t.text('kind').notNullable().defaultTo('line').checkIn(['line', 'truncated']);
    t.text('lease_id');
    t.integer('agent_seq');
    t.text('stream');
    t.text('line');
    t.timestamp('ts', { useTz: true }).notNullable();
    t.integer('bytes').notNullable().defaultTo(0);
    t.jsonb('data');
    t.primary(['job_id', 'seq']);
  });
  await knex.raw(
    'CREATE UNIQUE INDEX job_logs_agent_seq ON job_logs (job_id, lease_id, agent_seq) WHERE agent_seq IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['job_logs', 'job_attempts', 'jobs', 'api_keys', 'agents', 'workspaces']) {
    await knex.schema.dropTableIfExists(table);
  }
}
