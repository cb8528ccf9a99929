import type { Knex } from 'knex';

// A managed submit refused for its workspace's plan or subscription, inside the submit's own
// statement as the credit gate's refusal is (src/billing/gate.ts): raising aborts the statement,
// and the job's row with it. The reason and the plan travel in the error's DETAIL.

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION compute_managed_refused(reason text, plan text) RETURNS numeric LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION USING ERRCODE = 'CB403', MESSAGE = 'no managed pool for this workspace',
        DETAIL = json_build_object('reason', reason, 'plan', plan)::text;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS compute_managed_refused(text, text)');
}
