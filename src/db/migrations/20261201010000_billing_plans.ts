import type { Knex } from 'knex';

// Plans and each workspace's billing account (CONTRACT §9). Money is PostgreSQL `numeric`, exact:
// prices per second to 12 decimals, amounts in USD to 6. A workspace's plan stays
// `workspaces.plan` (the /v0 limiter reads it through the credential cache), now a reference to
// its plan row. Every workspace has exactly one account: the existing ones are backfilled here and
// a trigger opens one with each new workspace, however the workspace is made, so a statement that
// prices or gates never meets a workspace without one.

/** The current calendar month in UTC, whatever the session's time zone (month arithmetic on timestamptz would use it). */
const MONTH_START = `(date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;
const MONTH_END = `((date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC')`;

const PLANS = [
  {
    id: 'hobby',
    name: 'Hobby',
    position: 1,
    cpu: '0',
    gpu: '0',
    gb: '0',
    rps: null,
    burst: null,
    workspace_limits: false,
    billed: false,
    invoices: false,
  },
  {
    id: 'payg',
    name: 'Pay as you go',
    position: 2,
    cpu: '0.000024',
    gpu: '0.000600',
    gb: '0.0000025',
    rps: 100,
    burst: 200,
    workspace_limits: false,
    billed: true,
    invoices: true,
  },
  {
    id: 'team',
    name: 'Team',
    position: 3,
    cpu: '0.000020',
    gpu: '0.000500',
    gb: '0.0000020',
    rps: 1000,
    burst: 2000,
    workspace_limits: false,
    billed: true,
    invoices: true,
  },
  {
    id: 'enterprise',
    name: 'Enterprise',
    position: 4,
    cpu: '0.000020',
    gpu: '0.000500',
    gb: '0.0000020',
    rps: null,
    burst: null,
    workspace_limits: true,
    billed: true,
    invoices: false,
  },
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('billing_plans', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.smallint('position').notNullable().unique();
    t.specificType('cpu_second_usd', 'numeric(20,12)').notNullable();
    t.specificType('gpu_second_usd', 'numeric(20,12)').notNullable();
    t.specificType('gb_second_usd', 'numeric(20,12)').notNullable();
    // The /v0 budget of every workspace on the plan; null: none, or the workspace's own when workspace_limits.
    t.integer('requests_per_second');
    t.integer('burst');
    t.boolean('workspace_limits').notNullable().defaultTo(false);
    // Whether usage on the plan is charged at all (hobby is not) and invoiced (enterprise is billed by contract).
    t.boolean('billed').notNullable();
    t.boolean('invoices').notNullable();
  });
  await knex.raw(`ALTER TABLE billing_plans ADD CONSTRAINT billing_plans_prices_check
    CHECK (cpu_second_usd >= 0 AND gpu_second_usd >= 0 AND gb_second_usd >= 0)`);
  await knex.raw(`ALTER TABLE billing_plans ADD CONSTRAINT billing_plans_budget_check
    CHECK ((requests_per_second IS NULL AND burst IS NULL)
      OR (requests_per_second IS NOT NULL AND burst IS NOT NULL AND requests_per_second > 0 AND burst >= requests_per_second))`);
  await knex('billing_plans').insert(
    PLANS.map((p) => ({
      id: p.id,
      name: p.name,
      position: p.position,
      cpu_second_usd: p.cpu,
      gpu_second_usd: p.gpu,
      gb_second_usd: p.gb,
      requests_per_second: p.rps,
      burst: p.burst,
      workspace_limits: p.workspace_limits,
      billed: p.billed,
      invoices: p.invoices,
    })),
  );
  await knex.raw(
    'ALTER TABLE workspaces ADD CONSTRAINT workspaces_plan_fk FOREIGN KEY (plan) REFERENCES billing_plans (id)',
  );

  await knex.schema.createTable('billing_accounts', (t) => {
    t.text('workspace_id').primary().references('id').inTable('workspaces').onDelete('CASCADE');
    t.text('status')
      .notNullable()
      .defaultTo('active')
      .checkIn(['active', 'pending', 'past_due', 'canceled'], 'billing_accounts_status_check');
    t.timestamp('current_period_start', { useTz: true }).notNullable().defaultTo(knex.raw(MONTH_START));
    t.timestamp('current_period_end', { useTz: true }).notNullable().defaultTo(knex.raw(MONTH_END));
    t.specificType('credit_usd', 'numeric(20,6)').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'ALTER TABLE billing_accounts ADD CONSTRAINT billing_accounts_period_check CHECK (current_period_end > current_period_start)',
  );
  await knex.raw('ALTER TABLE billing_accounts ADD CONSTRAINT billing_accounts_credit_check CHECK (credit_usd >= 0)');
  await knex.raw('INSERT INTO billing_accounts (workspace_id) SELECT id FROM workspaces ON CONFLICT DO NOTHING');
  await knex.raw(`
    CREATE FUNCTION compute_open_billing_account() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO billing_accounts (workspace_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER workspaces_open_billing_account AFTER INSERT ON workspaces FOR EACH ROW EXECUTE FUNCTION compute_open_billing_account()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS workspaces_open_billing_account ON workspaces');
  await knex.raw('DROP FUNCTION IF EXISTS compute_open_billing_account()');
  await knex.schema.dropTable('billing_accounts');
  await knex.raw('ALTER TABLE workspaces DROP CONSTRAINT IF EXISTS workspaces_plan_fk');
  await knex.schema.dropTable('billing_plans');
}
