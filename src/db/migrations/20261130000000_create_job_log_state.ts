import type { Knex } from 'knex';

// A job's log state (its next seq, the head and tail budgets, the truncation marker) moves from
// seven `jobs.log_*` columns to a table of its own, written only by src/logs: the jobs table is
// written only by src/jobs. A job that has logged nothing has no row (the defaults hold).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('job_log_state', (t) => {
    t.text('job_id').primary().references('jobs.id').onDelete('CASCADE');
    t.bigInteger('next_seq').notNullable().defaultTo(1);
    t.bigInteger('head_bytes').notNullable().defaultTo(0);
    t.bigInteger('tail_bytes').notNullable().defaultTo(0);
    t.bigInteger('truncated_seq');
    t.bigInteger('tail_start_seq');
    t.text('dropped_lease_id');
    t.integer('dropped_agent_seq');
  });
  await knex.raw(`INSERT INTO job_log_state (job_id, next_seq, head_bytes, tail_bytes, truncated_seq, tail_start_seq, dropped_lease_id, dropped_agent_seq)
    SELECT id, log_next_seq, log_head_bytes, log_tail_bytes, log_truncated_seq, log_tail_start_seq, log_dropped_lease_id, log_dropped_agent_seq
    FROM jobs WHERE log_next_seq > 1 OR log_dropped_lease_id IS NOT NULL`);
  await knex.schema.alterTable('jobs', (t) => {
    for (const c of [
      'log_next_seq',
      'log_head_bytes',
      'log_tail_bytes',
      'log_truncated_seq',
      'log_tail_start_seq',
      'log_dropped_lease_id',
      'log_dropped_agent_seq',
    ])
      t.dropColumn(c);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.bigInteger('log_next_seq').notNullable().defaultTo(1);
    t.bigInteger('log_head_bytes').notNullable().defaultTo(0);
    t.bigInteger('log_tail_bytes').notNullable().defaultTo(0);
    t.bigInteger('log_truncated_seq');
    t.bigInteger('log_tail_start_seq');
    t.text('log_dropped_lease_id');
    t.integer('log_dropped_agent_seq');
  });
  await knex.raw(`UPDATE jobs j SET log_next_seq = s.next_seq, log_head_bytes = s.head_bytes, log_tail_bytes = s.tail_bytes,
      log_truncated_seq = s.truncated_seq, log_tail_start_seq = s.tail_start_seq, log_dropped_lease_id = s.dropped_lease_id,
      log_dropped_agent_seq = s.dropped_agent_seq
    FROM job_log_state s WHERE s.job_id = j.id`);
  await knex.schema.dropTable('job_log_state');
}
