import type { Knex } from 'knex';

// A submit's audit entry is written by the statement that acknowledges the job (its row becomes
// visible once its workflow exists), whichever process gets there: the submit itself or the
// reconciler after a crash. So the row carries who submitted it until then.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.jsonb('submitted_by');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.dropColumn('submitted_by');
  });
}
