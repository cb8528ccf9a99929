import type { Knex } from 'knex';

// Webhooks (CONTRACT §7): endpoints, the outbox of job events (written by the statement that
// writes the transition), and the log of every delivery attempt.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('id').inTable('workspaces');
    t.text('url').notNullable();
    t.jsonb('events').notNullable();
    t.text('description');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.text('disabled_reason');
    // Kept as given: HMAC signing needs the secret itself, not a hash of it.
    t.text('secret').notNullable();
    t.text('previous_secret');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
  });
  // The outbox insert asks this on every transition of a workspace's jobs.
  await knex.raw('CREATE INDEX webhooks_live ON webhooks (workspace_id) WHERE enabled AND deleted_at IS NULL');

  await knex.schema.createTable('webhook_events', (t) => {
    // Per job, seq is commit order: each event is written under its job row's lock.
    t.bigIncrements('seq').primary();
    t.text('id').notNullable().unique();
    t.text('workspace_id').notNullable();
    t.text('job_id').notNullable();
    t.text('type').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.boolean('relayed').notNullable().defaultTo(false);
  });
  await knex.raw('CREATE INDEX webhook_events_unrelayed ON webhook_events (seq) WHERE NOT relayed');
  await knex.raw('CREATE INDEX webhook_events_job ON webhook_events (job_id, seq)');

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('id').primary();
    t.text('webhook_id').notNullable().references('id').inTable('webhooks');
    t.text('event_id').notNullable();
    t.bigInteger('event_seq').notNullable();
    t.text('job_id').notNullable();
    t.text('event_type').notNullable();
    t.integer('attempt').notNullable();
    t.text('status').notNullable();
    t.integer('response_status');
    t.text('response_body');
    t.text('error');
    t.integer('duration_ms').notNullable();
    t.boolean('redelivery').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('next_attempt_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX webhook_deliveries_list ON webhook_deliveries (webhook_id, id DESC)');
  await knex.raw('CREATE INDEX webhook_deliveries_lane ON webhook_deliveries (webhook_id, job_id, event_seq)');
  await knex.raw('CREATE INDEX webhook_deliveries_event ON webhook_deliveries (webhook_id, event_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhook_events');
  await knex.schema.dropTable('webhooks');
}
