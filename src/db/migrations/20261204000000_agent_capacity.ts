import type { Knex } from 'knex';

// What an agent has to give its jobs (`{cpu, memoryMb, gpu}`), given when it registers: a poll of
// an agent with a capacity is handed only jobs whose `resources` fit what its running jobs leave.
// Null for an agent that gave none, which is handed jobs whatever they ask for.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.jsonb('capacity');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.dropColumn('capacity');
  });
}
