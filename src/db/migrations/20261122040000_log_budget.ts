import type { Knex } from 'knex';

// The log budget's bookkeeping on the job row, so a push trims the tail by seq range from where
// it starts instead of summing the whole tail. Seqs are handed out without gaps and only the
// oldest tail lines are ever deleted, so the head is seqs [1, marker) and the tail
// [log_tail_start_seq, log_next_seq): both counts follow from these seqs.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    // The first retained tail seq; null until the log has a truncation marker.
    t.bigInteger('log_tail_start_seq');
    // The newest agent seq of the current lease that was dropped: a retried push of lines already
    // trimmed counts as a duplicate instead of coming back.
    t.text('log_dropped_lease_id');
    t.integer('log_dropped_agent_seq');
  });
  await knex.raw(
    `UPDATE jobs j
        SET log_tail_start_seq = coalesce(
              (SELECT min(l.seq) FROM job_logs l WHERE l.job_id = j.id AND l.seq > j.log_truncated_seq),
              j.log_next_seq)
      WHERE j.log_truncated_seq IS NOT NULL`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.dropColumn('log_dropped_agent_seq');
    t.dropColumn('log_dropped_lease_id');
    t.dropColumn('log_tail_start_seq');
  });
}
