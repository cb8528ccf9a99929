import type { Knex } from 'knex';

// DELETE /v0/agents/{id}: the agent's row stays (its attempts and audit entries name it), marked
// removed; a removed agent is not listed, takes no work, and its jobs are requeued.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.timestamp('deregistered_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('agents', (t) => {
    t.dropColumn('deregistered_at');
  });
}
