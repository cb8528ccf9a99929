import type { Knex } from 'knex';

// A job's artifacts are read from the artifacts table (src/artifacts owns it) whenever the job is
// read; the copy src/artifacts kept in `jobs.artifacts` goes, so only src/jobs writes job rows.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => t.dropColumn('artifacts'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => t.jsonb('artifacts').notNullable().defaultTo('[]'));
  await knex.raw(`UPDATE jobs j SET artifacts = (
      SELECT coalesce(jsonb_agg(jsonb_build_object(
        'id', a.id, 'name', a.name, 'size', a.size, 'sha256', a.sha256,
        'createdAt', to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      ) ORDER BY a.created_at, a.id), '[]'::jsonb) FROM artifacts a WHERE a.job_id = j.id)`);
}
