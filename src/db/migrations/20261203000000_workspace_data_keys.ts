import type { Knex } from 'knex';

// Each workspace's data key (issue 33): 32 random bytes that seal its job env at rest (and its
// Temporal payloads), kept only wrapped (AES-256-GCM) by an operator key of TEMPORAL_CODEC_KEYS,
// named by `wrapped_by` (the key's id: the first 8 hex characters of its SHA-256). Rotating the
// operator key re-wraps these rows; what the data keys sealed is never touched.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workspace_data_keys', (t) => {
    t.text('workspace_id').primary().references('workspaces.id');
    t.text('wrapped_by').notNullable();
    t.binary('iv').notNullable();
    t.binary('wrapped').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('rewrapped_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('workspace_data_keys');
}
