import type { Knex } from 'knex';

// `Idempotency-Key` on POST /v0/jobs. A key names its job before anything else happens, so every
// attempt to carry the request out (the first, or one taking over after a crash) makes that one
// job; the answer is kept for replay until the key expires.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('workspace_id').notNullable().references('id').inTable('workspaces').onDelete('CASCADE');
    t.string('key', 255).notNullable();
    t.string('fingerprint', 64).notNullable();
    t.text('job_id').notNullable();
    // Which attempt carries the request out now; another may take over once holder_until passes.
    t.string('holder', 32).notNullable();
    t.timestamp('holder_until', { useTz: true }).notNullable();
    t.smallint('response_status');
    t.jsonb('response_body');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['workspace_id', 'key']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
}
