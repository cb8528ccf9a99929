import type { Knex } from 'knex';

// Metering (CONTRACT §9). The usage ledger is append-only: one entry per (job, attempt, window),
// the window being a meter tick's end, `end` (the remainder written by the attempt's end) or
// `reported` (the agent's own figures correcting the estimate). Each entry covers from the
// previous entry's end to its own, so an attempt's entries add up to exactly its runtime ×
// resources however ticks and ends interleave, and a repeated write is refused by the key.
//
// An entry is priced as it is written, at its workspace's plan. What follows is kept by triggers
// in the same statement, so no writer can forget it and nothing counts twice: the period's spend
// grows by each entry inserted; a managed job's reservation (its worst case, taken at submit) is
// consumed by its entries; and the account's `reserved_usd` is always the sum of what its
// reservations have left. The credit gate and the hard cap read those two figures on one row.
export async function up(knex: Knex): Promise<void> {
  // Prepaid plans are bounded by their credit; the others by their hard cap alone.
  await knex.schema.alterTable('billing_plans', (t) => t.boolean('prepaid').notNullable().defaultTo(false));
  await knex('billing_plans').where({ id: 'payg' }).update({ prepaid: true });

  await knex.schema.alterTable('billing_accounts', (t) => {
    t.specificType('spent_usd', 'numeric').notNullable().defaultTo(0);
    t.specificType('reserved_usd', 'numeric').notNullable().defaultTo(0);
    t.specificType('soft_cap_usd', 'numeric(20,6)');
    t.specificType('hard_cap_usd', 'numeric(20,6)');
    // `{softCapUsd?, hardCapUsd?}` as PATCHed (null clears a cap), applied by the next tick.
    t.jsonb('pending_caps');
    t.timestamp('pending_requested_at', { useTz: true });
    // The period whose soft-cap crossing was recorded: once per period.
    t.timestamp('soft_cap_noted_for', { useTz: true });
  });

  await knex.schema.createTable('usage_ledger', (t) => {
    t.bigIncrements('id');
    t.text('workspace_id').notNullable().references('workspaces.id');
    t.text('job_id').notNullable().references('jobs.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.text('lease_id').notNullable();
    t.text('pool').notNullable();
    t.text('meter_window').notNullable();
    t.timestamp('from_at', { useTz: true }).notNullable();
    t.timestamp('to_at', { useTz: true }).notNullable();
    t.specificType('cpu_seconds', 'numeric').notNullable();
    t.specificType('gpu_seconds', 'numeric').notNullable();
    t.specificType('gb_seconds', 'numeric').notNullable();
    t.specificType('amount_usd', 'numeric').notNullable();
    t.timestamp('period_start', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['job_id', 'attempt', 'meter_window']);
  });
  // An attempt's latest entry (where the next one starts); a workspace's usage over a window.
  await knex.raw('CREATE INDEX usage_ledger_attempt_to ON usage_ledger (job_id, attempt, to_at DESC)');
  await knex.raw('CREATE INDEX usage_ledger_workspace_to ON usage_ledger (workspace_id, to_at)');
  // What a tick meters: the attempts still running, however many have ended.
  await knex.raw('CREATE INDEX job_attempts_running ON job_attempts (lease_id) WHERE ended_at IS NULL');

  await knex.schema.createTable('billing_reservations', (t) => {
    t.text('job_id').primary().references('jobs.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable().references('workspaces.id');
    t.specificType('amount_usd', 'numeric').notNullable();
    t.specificType('consumed_usd', 'numeric').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX billing_reservations_workspace ON billing_reservations (workspace_id, created_at DESC)');

  // What a reservation still holds back.
  const left = (r: string) => `greatest(${r}.amount_usd - ${r}.consumed_usd, 0)`;
  await knex.raw(`
    CREATE FUNCTION compute_reservations_held() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        UPDATE billing_accounts b SET reserved_usd = b.reserved_usd + d.held
        FROM (SELECT workspace_id, sum(${left('n')}) AS held FROM new_rows n GROUP BY workspace_id) d WHERE b.workspace_id = d.workspace_id;
      ELSIF TG_OP = 'DELETE' THEN
        UPDATE billing_accounts b SET reserved_usd = b.reserved_usd - d.held
        FROM (SELECT workspace_id, sum(${left('o')}) AS held FROM old_rows o GROUP BY workspace_id) d WHERE b.workspace_id = d.workspace_id;
      ELSE
        UPDATE billing_accounts b SET reserved_usd = b.reserved_usd + d.held
        FROM (SELECT n.workspace_id, sum(${left('n')} - ${left('o')}) AS held FROM new_rows n JOIN old_rows o USING (job_id) GROUP BY n.workspace_id) d
        WHERE b.workspace_id = d.workspace_id AND d.held <> 0;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER billing_reservations_held_insert AFTER INSERT ON billing_reservations
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION compute_reservations_held()`);
  await knex.raw(`CREATE TRIGGER billing_reservations_held_update AFTER UPDATE ON billing_reservations
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION compute_reservations_held()`);
  await knex.raw(`CREATE TRIGGER billing_reservations_held_delete AFTER DELETE ON billing_reservations
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION compute_reservations_held()`);

  // Entries inserted (a repeat refused by the key never gets here): the period's spend, and the
  // consumption of each managed job's reservation.
  await knex.raw(`
    CREATE FUNCTION compute_ledger_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE billing_reservations r SET consumed_usd = r.consumed_usd + d.amount
      FROM (SELECT job_id, sum(amount_usd) AS amount FROM new_rows GROUP BY job_id) d
      WHERE r.job_id = d.job_id AND d.amount <> 0;
      UPDATE billing_accounts b SET spent_usd = b.spent_usd + d.amount
      FROM (SELECT workspace_id, period_start, sum(amount_usd) AS amount FROM new_rows GROUP BY workspace_id, period_start) d
      WHERE b.workspace_id = d.workspace_id AND b.current_period_start = d.period_start AND d.amount <> 0;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER usage_ledger_counted AFTER INSERT ON usage_ledger
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION compute_ledger_counted()`);
  // The credit gate's refusal inside a submit's own statement (src/billing/gate.ts): raising
  // aborts the statement, the job's row with it. The figures travel in the error's DETAIL.
  await knex.raw(`
    CREATE FUNCTION compute_credit_refused(spent numeric, reserved numeric, required numeric, credit numeric) RETURNS numeric LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION USING ERRCODE = 'CB402', MESSAGE = 'credit does not cover the job',
        DETAIL = json_build_object('spentUsd', round(spent, 6), 'reservedUsd', round(reserved, 6), 'requiredUsd', round(required, 6), 'creditUsd', round(credit, 6))::text;
    END $$`);
  // Append-only: corrections are entries of their own.
  await knex.raw(`
    CREATE FUNCTION compute_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'usage_ledger is append-only'; END $$`);
  await knex.raw(
    'CREATE TRIGGER usage_ledger_append_only BEFORE UPDATE ON usage_ledger FOR EACH ROW EXECUTE FUNCTION compute_ledger_append_only()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS job_attempts_running');
  await knex.schema.dropTable('billing_reservations');
  await knex.schema.dropTable('usage_ledger');
  await knex.raw('DROP FUNCTION IF EXISTS compute_reservations_held()');
  await knex.raw('DROP FUNCTION IF EXISTS compute_ledger_counted()');
  await knex.raw('DROP FUNCTION IF EXISTS compute_ledger_append_only()');
  await knex.raw('DROP FUNCTION IF EXISTS compute_credit_refused(numeric, numeric, numeric, numeric)');
  await knex.schema.alterTable('billing_accounts', (t) => {
    for (const c of [
      'spent_usd',
      'reserved_usd',
      'soft_cap_usd',
      'hard_cap_usd',
      'pending_caps',
      'pending_requested_at',
      'soft_cap_noted_for',
    ])
      t.dropColumn(c);
  });
  await knex.schema.alterTable('billing_plans', (t) => t.dropColumn('prepaid'));
}
