import type { Knex } from 'knex';

// Stripe, downstream of our database (CONTRACT §9). A workspace's Stripe customer and subscription
// on its account; the checkout sessions we opened; each Stripe event we applied, by its `evt_` id,
// stored in the same transaction as its effect, so a replay changes nothing; and the meter events
// owed to Stripe, an outbox filled by a trigger in the statement that writes each priced entry.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('billing_plans', (t) => {
    // The subscription's recurring price and its metered price (one unit = one micro-dollar of usage).
    t.text('stripe_price_id');
    t.text('stripe_usage_price_id');
  });
  for (const plan of ['payg', 'team']) {
    await knex('billing_plans')
      .where({ id: plan })
      .update({ stripe_price_id: `price_compute_${plan}`, stripe_usage_price_id: 'price_compute_usage' });
  }

  await knex.schema.alterTable('billing_accounts', (t) => {
    t.text('stripe_customer_id').unique();
    t.text('stripe_subscription_id');
    // The Stripe-side time of the newest subscription state applied: an older event changes nothing.
    t.timestamp('stripe_synced_at', { useTz: true });
  });

  await knex.schema.createTable('stripe_checkout_sessions', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('plan').notNullable().references('billing_plans.id');
    t.text('status').notNullable().defaultTo('open');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['workspace_id', 'created_at']);
  });
  await knex.raw(
    `ALTER TABLE stripe_checkout_sessions ADD CONSTRAINT stripe_checkout_sessions_status_check CHECK (status IN ('open', 'complete', 'expired'))`,
  );

  await knex.schema.createTable('stripe_events', (t) => {
    t.text('id').primary();
    t.text('type').notNullable();
    t.timestamp('stripe_created_at', { useTz: true }).notNullable();
    t.text('workspace_id');
    // applied | stale (an older state than one applied) | ignored (a type or object we do not act on)
    t.text('outcome').notNullable();
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('stripe_meter_events', (t) => {
    t.bigInteger('ledger_id').primary().references('usage_ledger.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable();
    t.text('customer_id').notNullable();
    // Derived from the ledger's key (job, attempt, window), so a resend is the same event to Stripe.
    t.text('identifier').notNullable().unique();
    t.bigInteger('value_microusd').notNullable();
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('delivered_at', { useTz: true });
    t.text('last_error');
  });
  await knex.raw(
    'CREATE INDEX stripe_meter_events_due ON stripe_meter_events (next_attempt_at) WHERE delivered_at IS NULL',
  );

  // Priced managed usage of a workspace that has a Stripe customer is owed to Stripe; a negative
  // entry (an end after a tick that ran past it, an agent's lower figures) too: Stripe takes
  // negative quantities as corrections.
  await knex.raw(`
    CREATE FUNCTION compute_meter_events_owed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO stripe_meter_events (ledger_id, workspace_id, customer_id, identifier, value_microusd, occurred_at)
      SELECT n.id, n.workspace_id, b.stripe_customer_id,
             'cu_' || md5(n.job_id || ':' || n.attempt || ':' || n.meter_window),
             round(n.amount_usd * 1000000)::bigint, n.to_at
      FROM new_rows n JOIN billing_accounts b ON b.workspace_id = n.workspace_id
      WHERE n.pool = 'managed' AND b.stripe_customer_id IS NOT NULL AND round(n.amount_usd * 1000000) <> 0;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER usage_ledger_meter_events AFTER INSERT ON usage_ledger
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION compute_meter_events_owed()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS usage_ledger_meter_events ON usage_ledger');
  await knex.raw('DROP FUNCTION IF EXISTS compute_meter_events_owed()');
  await knex.schema.dropTable('stripe_meter_events');
  await knex.schema.dropTable('stripe_events');
  await knex.schema.dropTable('stripe_checkout_sessions');
  await knex.schema.alterTable('billing_accounts', (t) => {
    for (const c of ['stripe_customer_id', 'stripe_subscription_id', 'stripe_synced_at']) t.dropColumn(c);
  });
  await knex.schema.alterTable('billing_plans', (t) => {
    t.dropColumn('stripe_price_id');
    t.dropColumn('stripe_usage_price_id');
  });
}
