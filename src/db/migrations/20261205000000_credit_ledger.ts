import type { Knex } from 'knex';

// Prepaid credit (CONTRACT §9) as a balance that managed usage draws down, kept in an append-only
// ledger: grants (optionally expiring), draws and returns (each tied to the usage entry that made
// it), expiries and operators' adjustments. The account's `credit_usd` is the ledger's sum, kept by
// a trigger in the statement that appends, and each grant's remainder is kept beside it, so a draw
// reads a handful of rows however long the history. Draws take from the grant that expires soonest
// (one without an expiry last).
//
// A priced managed entry draws in the statement that writes it (usage_ledger_credit, which runs
// before the Stripe outbox's trigger by name), so the period's close has nothing left to draw and
// never restores anything; a negative entry (a correction) gives back what its attempt drew. The
// part of an entry the credit did not cover is what is billed: owed to Stripe as a meter event when
// positive, settled on the invoice when negative (Stripe's meter takes no negative events). An
// invoice shows the credit its entries drew as a line of its own and bills only the rest.
export async function up(knex: Knex): Promise<void> {
  // The balance is exact whatever the draws' decimals; grants and adjustments keep 6.
  await knex.raw('ALTER TABLE billing_accounts DROP CONSTRAINT billing_accounts_credit_check');
  await knex.raw('ALTER TABLE billing_accounts ALTER COLUMN credit_usd TYPE numeric');
  await knex.raw('ALTER TABLE billing_accounts ADD CONSTRAINT billing_accounts_credit_check CHECK (credit_usd >= 0)');

  await knex.schema.createTable('credit_ledger', (t) => {
    t.bigIncrements('id');
    t.text('workspace_id').notNullable().references('workspaces.id');
    t.text('kind')
      .notNullable()
      .checkIn(['grant', 'draw', 'return', 'expiry', 'adjustment'], 'credit_ledger_kind_check');
    t.specificType('amount_usd', 'numeric').notNullable();
    // The grant a movement takes from or gives back to (none for a grant itself).
    t.bigInteger('grant_id').references('credit_ledger.id');
    // A draw's or return's usage entry and attempt (no reference: the ledger outlives jobs).
    t.bigInteger('ledger_id');
    t.text('job_id');
    t.integer('attempt');
    t.timestamp('expires_at', { useTz: true });
    t.jsonb('actor');
    t.text('note');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE credit_ledger ADD CONSTRAINT credit_ledger_amount_check CHECK (
    (kind = 'grant') = (grant_id IS NULL)
    AND (expires_at IS NULL OR kind = 'grant')
    AND CASE kind WHEN 'grant' THEN amount_usd > 0 WHEN 'return' THEN amount_usd > 0 ELSE amount_usd <= 0 END
    AND (kind IN ('draw', 'return')) = (ledger_id IS NOT NULL))`);
  await knex.raw('CREATE INDEX credit_ledger_workspace ON credit_ledger (workspace_id, id)');
  await knex.raw('CREATE INDEX credit_ledger_usage ON credit_ledger (ledger_id) WHERE ledger_id IS NOT NULL');
  await knex.raw('CREATE INDEX credit_ledger_attempt ON credit_ledger (job_id, attempt) WHERE job_id IS NOT NULL');
  await knex.raw(`CREATE UNIQUE INDEX credit_ledger_expiry_once ON credit_ledger (grant_id) WHERE kind = 'expiry'`);

  // What each grant has left (the ledger's sum over it), and whether it has expired.
  await knex.schema.createTable('credit_grants', (t) => {
    t.bigInteger('id').primary().references('credit_ledger.id');
    t.text('workspace_id').notNullable().references('workspaces.id');
    t.timestamp('expires_at', { useTz: true });
    t.specificType('remaining_usd', 'numeric').notNullable();
    t.boolean('expired').notNullable().defaultTo(false);
  });
  await knex.raw('ALTER TABLE credit_grants ADD CONSTRAINT credit_grants_remaining_check CHECK (remaining_usd >= 0)');
  await knex.raw('CREATE INDEX credit_grants_live ON credit_grants (workspace_id, expires_at, id) WHERE NOT expired');
  await knex.raw(
    'CREATE INDEX credit_grants_expiring ON credit_grants (expires_at) WHERE NOT expired AND expires_at IS NOT NULL',
  );

  await knex.raw(`
    CREATE FUNCTION compute_credit_kept() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO credit_grants (id, workspace_id, expires_at, remaining_usd)
      SELECT n.id, n.workspace_id, n.expires_at, n.amount_usd FROM new_rows n WHERE n.kind = 'grant';
      UPDATE credit_grants g SET remaining_usd = g.remaining_usd + d.amount, expired = g.expired OR d.expiry
      FROM (SELECT grant_id, sum(amount_usd) AS amount, bool_or(kind = 'expiry') AS expiry FROM new_rows WHERE grant_id IS NOT NULL GROUP BY grant_id) d
      WHERE g.id = d.grant_id;
      UPDATE billing_accounts b SET credit_usd = b.credit_usd + d.amount, updated_at = now()
      FROM (SELECT workspace_id, sum(amount_usd) AS amount FROM new_rows GROUP BY workspace_id) d
      WHERE b.workspace_id = d.workspace_id AND d.amount <> 0;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER credit_ledger_kept AFTER INSERT ON credit_ledger
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION compute_credit_kept()`);
  await knex.raw(`
    CREATE FUNCTION compute_credit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'credit_ledger is append-only'; END $$`);
  await knex.raw(
    'CREATE TRIGGER credit_ledger_append_only BEFORE UPDATE OR DELETE ON credit_ledger FOR EACH ROW EXECUTE FUNCTION compute_credit_append_only()',
  );

  // Takes up to `wanted` from the workspace's live grants, soonest expiry first, as rows of `kind`;
  // returns what it took. The caller holds the account row, so takers of one workspace queue.
  await knex.raw(`
    CREATE FUNCTION compute_credit_take(ws text, wanted numeric, k text, entry bigint, job text, att int, who jsonb, why text) RETURNS numeric LANGUAGE plpgsql AS $$
    DECLARE g record; left_usd numeric := wanted; take numeric;
    BEGIN
      FOR g IN SELECT id, remaining_usd FROM credit_grants
               WHERE workspace_id = ws AND NOT expired AND remaining_usd > 0
               ORDER BY expires_at NULLS LAST, id
      LOOP
        EXIT WHEN left_usd <= 0;
        take := least(left_usd, g.remaining_usd);
        INSERT INTO credit_ledger (workspace_id, kind, amount_usd, grant_id, ledger_id, job_id, attempt, actor, note)
        VALUES (ws, k, -take, g.id, entry, job, att, who, why);
        left_usd := left_usd - take;
      END LOOP;
      RETURN wanted - left_usd;
    END $$`);

  // Each priced managed entry draws what it costs, as far as the credit goes; a negative one gives
  // back what its attempt drew and has not had back, to grants not expired, the last drawn first.
  await knex.raw(`
    CREATE FUNCTION compute_credit_drawn() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE e record; g record; left_usd numeric; give numeric;
    BEGIN
      -- The accounts whose credit this statement moves, locked in one order before anything is
      -- read of their grants (the statements after this one see what earlier drawers committed).
      PERFORM 1 FROM billing_accounts b
      WHERE b.workspace_id IN (SELECT n.workspace_id FROM new_rows n WHERE n.pool = 'managed' AND n.amount_usd <> 0)
        AND (b.credit_usd > 0 OR EXISTS (SELECT 1 FROM new_rows n WHERE n.workspace_id = b.workspace_id AND n.pool = 'managed' AND n.amount_usd < 0))
      ORDER BY b.workspace_id FOR UPDATE;
      -- Draws, set-based: per workspace the entries (in id order) and the live grants (soonest
      -- expiry first) laid end to end; each entry draws its overlap with each grant, so together
      -- they take min(their sum, the balance) from the grants in order. (Aliases en and gr: the
      -- loop below names its records e and g.)
      INSERT INTO credit_ledger (workspace_id, kind, amount_usd, grant_id, ledger_id, job_id, attempt)
      SELECT en.workspace_id, 'draw', -(least(en.upto, gr.upto) - greatest(en.upto - en.amount_usd, gr.upto - gr.remaining_usd)), gr.id, en.id, en.job_id, en.attempt
      FROM (SELECT n.id, n.workspace_id, n.job_id, n.attempt, n.amount_usd,
                   sum(n.amount_usd) OVER (PARTITION BY n.workspace_id ORDER BY n.id) AS upto
            FROM new_rows n JOIN billing_accounts b ON b.workspace_id = n.workspace_id
            WHERE n.pool = 'managed' AND n.amount_usd > 0 AND b.credit_usd > 0) en
      JOIN (SELECT cg.id, cg.workspace_id, cg.remaining_usd,
                   sum(cg.remaining_usd) OVER (PARTITION BY cg.workspace_id ORDER BY cg.expires_at NULLS LAST, cg.id) AS upto
            FROM credit_grants cg
            WHERE NOT cg.expired AND cg.remaining_usd > 0
              AND cg.workspace_id IN (SELECT n.workspace_id FROM new_rows n WHERE n.pool = 'managed' AND n.amount_usd > 0)) gr
        ON gr.workspace_id = en.workspace_id AND gr.upto - gr.remaining_usd < en.upto AND en.upto - en.amount_usd < gr.upto
      ORDER BY en.workspace_id, en.id, gr.upto;
      -- A correction gives back what its attempt drew and has not had back, the last drawn first.
      FOR e IN SELECT n.id, n.workspace_id, n.job_id, n.attempt, n.amount_usd FROM new_rows n
               WHERE n.pool = 'managed' AND n.amount_usd < 0 ORDER BY n.workspace_id, n.id
      LOOP
        left_usd := -e.amount_usd;
        FOR g IN SELECT c.grant_id, -sum(c.amount_usd) AS net FROM credit_ledger c JOIN credit_grants cg ON cg.id = c.grant_id
                 WHERE c.job_id = e.job_id AND c.attempt = e.attempt AND c.kind IN ('draw', 'return') AND NOT cg.expired
                 GROUP BY c.grant_id HAVING sum(c.amount_usd) < 0 ORDER BY max(c.id) DESC
        LOOP
          EXIT WHEN left_usd <= 0;
          give := least(left_usd, g.net);
          INSERT INTO credit_ledger (workspace_id, kind, amount_usd, grant_id, ledger_id, job_id, attempt)
          VALUES (e.workspace_id, 'return', give, g.grant_id, e.id, e.job_id, e.attempt);
          left_usd := left_usd - give;
        END LOOP;
      END LOOP;
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE TRIGGER usage_ledger_credit AFTER INSERT ON usage_ledger
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION compute_credit_drawn()`);

  // The credit accounts held until now becomes a grant each: the balance goes back to 0 first,
  // and the grant's insert (through the trigger above) puts it back.
  await knex.raw(
    'CREATE TEMPORARY TABLE prior_credit AS SELECT workspace_id, credit_usd FROM billing_accounts WHERE credit_usd > 0',
  );
  await knex.raw('UPDATE billing_accounts SET credit_usd = 0 WHERE credit_usd > 0');
  await knex.raw(`INSERT INTO credit_ledger (workspace_id, kind, amount_usd, note)
    SELECT workspace_id, 'grant', credit_usd, 'the credit held when the credit ledger began' FROM prior_credit ORDER BY workspace_id`);
  await knex.raw('DROP TABLE prior_credit');

  // Stripe: an entry's billed part is what the credit did not cover. A positive one is a meter
  // event; a negative one (Stripe's meter takes none) waits for its invoice, which settles the
  // corrections it claims as one negative invoice item.
  await knex.schema.createTable('stripe_usage_corrections', (t) => {
    t.bigInteger('ledger_id').primary();
    t.text('workspace_id').notNullable();
    t.text('customer_id').notNullable();
    t.bigInteger('value_microusd').notNullable();
  });
  await knex.raw(`
    CREATE OR REPLACE FUNCTION compute_meter_events_owed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      WITH billed AS (
        SELECT n.id, n.workspace_id, b.stripe_customer_id AS customer_id, n.to_at,
               'cu_' || md5(n.job_id || ':' || n.attempt || ':' || n.meter_window) AS identifier,
               round((n.amount_usd + coalesce((SELECT sum(c.amount_usd) FROM credit_ledger c WHERE c.ledger_id = n.id), 0)) * 1000000)::bigint AS micro
        FROM new_rows n JOIN billing_accounts b ON b.workspace_id = n.workspace_id
        WHERE n.pool = 'managed' AND b.stripe_customer_id IS NOT NULL AND n.amount_usd <> 0
      ), events AS (
        INSERT INTO stripe_meter_events (ledger_id, workspace_id, customer_id, identifier, value_microusd, occurred_at)
        SELECT id, workspace_id, customer_id, identifier, micro, to_at FROM billed WHERE micro > 0
      )
      INSERT INTO stripe_usage_corrections (ledger_id, workspace_id, customer_id, value_microusd)
      SELECT id, workspace_id, customer_id, micro FROM billed WHERE micro < 0;
      RETURN NULL;
    END $$`);
  await knex.schema.createTable('stripe_invoice_credits', (t) => {
    t.text('invoice_id').primary().references('invoices.id');
    t.text('workspace_id').notNullable();
    t.text('customer_id').notNullable();
    t.bigInteger('amount_cents').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('delivered_at', { useTz: true });
    t.text('stripe_invoice_item_id');
    t.text('last_error');
  });
  await knex.raw(
    'CREATE INDEX stripe_invoice_credits_due ON stripe_invoice_credits (next_attempt_at) WHERE delivered_at IS NULL',
  );
  await knex.raw(
    `ALTER TABLE stripe_invoice_credits ADD CONSTRAINT stripe_invoice_credits_negative CHECK (amount_cents < 0)`,
  );

  // Invoices: the credit their entries drew, and a line that shows it.
  await knex.schema.alterTable('invoices', (t) => t.specificType('credit_usd', 'numeric'));
  await knex.schema.alterTable('invoice_lines', (t) => {
    t.text('kind').notNullable().defaultTo('usage');
  });
  await knex.raw(`ALTER TABLE invoice_lines ALTER COLUMN job_id DROP NOT NULL, ALTER COLUMN attempt DROP NOT NULL`);
  await knex.raw(`ALTER TABLE invoice_lines ADD CONSTRAINT invoice_lines_kind_check CHECK (
    kind = 'usage' AND job_id IS NOT NULL AND attempt IS NOT NULL OR kind = 'credit' AND job_id IS NULL AND attempt IS NULL)`);
  await knex.raw(`CREATE UNIQUE INDEX invoice_lines_one_credit ON invoice_lines (invoice_id) WHERE kind = 'credit'`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION compute_invoice_final() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        IF OLD.status <> 'draft' THEN RAISE EXCEPTION 'invoice % is %: it is never deleted', OLD.id, OLD.status; END IF;
        RETURN OLD;
      END IF;
      IF OLD.status = 'draft' THEN RETURN NEW; END IF;
      IF (NEW.id, NEW.workspace_id, NEW.period_start, NEW.period_end, NEW.closes_at, NEW.total_usd, NEW.exact_usd, NEW.rounding_usd, NEW.credit_usd, NEW.created_at, NEW.opened_at)
         IS DISTINCT FROM (OLD.id, OLD.workspace_id, OLD.period_start, OLD.period_end, OLD.closes_at, OLD.total_usd, OLD.exact_usd, OLD.rounding_usd, OLD.credit_usd, OLD.created_at, OLD.opened_at)
         OR NEW.status = 'draft' OR (OLD.status = 'paid' AND (NEW.status <> 'paid' OR NEW.paid_at IS DISTINCT FROM OLD.paid_at)) THEN
        RAISE EXCEPTION 'invoice % is %: only open → paid and its Stripe id may change', OLD.id, OLD.status;
      END IF;
      RETURN NEW;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS usage_ledger_credit ON usage_ledger');
  await knex.raw('DROP FUNCTION IF EXISTS compute_credit_drawn()');
  await knex.raw('DROP FUNCTION IF EXISTS compute_credit_take(text, numeric, text, bigint, text, int, jsonb, text)');
  await knex.schema.dropTable('stripe_invoice_credits');
  await knex.schema.dropTable('stripe_usage_corrections');
  await knex.raw(`DELETE FROM invoice_lines WHERE kind = 'credit'`);
  await knex.raw('DROP INDEX IF EXISTS invoice_lines_one_credit');
  await knex.raw('ALTER TABLE invoice_lines DROP CONSTRAINT invoice_lines_kind_check');
  await knex.raw('ALTER TABLE invoice_lines ALTER COLUMN job_id SET NOT NULL, ALTER COLUMN attempt SET NOT NULL');
  await knex.schema.alterTable('invoice_lines', (t) => t.dropColumn('kind'));
  await knex.schema.alterTable('invoices', (t) => t.dropColumn('credit_usd'));
  await knex.schema.dropTable('credit_grants');
  await knex.schema.dropTable('credit_ledger');
  await knex.raw('DROP FUNCTION IF EXISTS compute_credit_kept()');
  await knex.raw('DROP FUNCTION IF EXISTS compute_credit_append_only()');
  await knex.raw('ALTER TABLE billing_accounts ALTER COLUMN credit_usd TYPE numeric(20,6)');
}
