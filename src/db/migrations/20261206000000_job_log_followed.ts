import type { Knex } from 'knex';

// Whether anyone ever followed a job's log: only then does its end NOTIFY the followers (each
// NOTIFY wakes every LISTEN connection of the database, whatever its channel).

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.boolean('log_followed').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.dropColumn('log_followed');
  });
}
