import type { Knex } from 'knex';

// The W3C `traceparent` of the request that submitted a job, when the API traced it: every later
// part of the job (each attempt's hand-out, its webhook deliveries) is a span of that trace.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.text('trace_parent');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.dropColumn('trace_parent');
  });
}
