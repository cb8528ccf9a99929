import type { Knex } from 'knex';

// Artifacts: one row per stored object, addressed by (job, id). The job row keeps a summary
// list so reading a job (or a page of 200) costs no extra query.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('artifacts', (t) => {
    t.text('job_id').notNullable().references('jobs.id');
    t.text('id').notNullable();
    t.text('workspace_id').notNullable().references('workspaces.id');
    t.text('name').notNullable();
    t.bigInteger('size').notNullable();
    t.text('sha256').notNullable();
    t.text('content_type').notNullable();
    t.text('object_key').notNullable();
    // The attempt that uploaded it; null for a browser upload through a presigned URL.
    t.text('lease_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['job_id', 'id']);
  });
  await knex.schema.alterTable('jobs', (t) => {
    t.jsonb('artifacts').notNullable().defaultTo('[]');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => t.dropColumn('artifacts'));
  await knex.schema.dropTable('artifacts');
}
