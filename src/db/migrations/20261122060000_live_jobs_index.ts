import type { Knex } from 'knex';

// The reconciler looks for live rows whose agent has long been silent: only live rows, which
// agents' slots bound, so a partial index keeps the look cheap however many jobs have ended.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX jobs_live ON jobs (lease_id) WHERE state IN ('RUNNING', 'CANCELLING')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS jobs_live');
}
