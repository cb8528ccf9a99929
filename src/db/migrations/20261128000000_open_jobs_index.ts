import type { Knex } from 'knex';

// The queue-depth gauge counts visible jobs not yet terminal per workspace and state at every scrape: a
// partial index over those rows keeps the count an index-only scan however many jobs have ended.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX jobs_open_by_workspace ON jobs (workspace_id, state) WHERE workflow_started AND state NOT IN ('SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS jobs_open_by_workspace');
}
