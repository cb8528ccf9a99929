import type { Knex } from 'knex';

// Invoices (CONTRACT §9). Closing a period of a workspace on a plan with invoices makes a `draft`
// for it; after a grace (a meter tick and a margin, for the entries of the period's last windows)
// it opens: it claims its managed ledger entries into `invoice_entries`, whose key is the ledger
// entry, so each entry lands in exactly one invoice, and its lines (per job, attempt and lateness)
// are written. From then on it never changes: triggers refuse any change to an open invoice's
// lines, entries and figures; only `open` → `paid` (with its Stripe id) remains.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('invoices', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id');
    t.timestamp('period_start', { useTz: true }).notNullable();
    t.timestamp('period_end', { useTz: true }).notNullable();
    t.text('status').notNullable().defaultTo('draft').checkIn(['draft', 'open', 'paid'], 'invoices_status_check');
    // When the draft may open: late entries of the period's last windows have landed by then.
    t.timestamp('closes_at', { useTz: true }).notNullable();
    // Set when it opens: the lines' sum (to the cent), their exact sum, and total − exact.
    t.specificType('total_usd', 'numeric(20,2)');
    t.specificType('exact_usd', 'numeric');
    t.specificType('rounding_usd', 'numeric');
    t.text('stripe_invoice_id').unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('opened_at', { useTz: true });
    t.timestamp('paid_at', { useTz: true });
    // A workspace's invoices newest first, and a period invoiced once.
    t.unique(['workspace_id', 'period_start']);
  });
  await knex.raw(`ALTER TABLE invoices ADD CONSTRAINT invoices_figures_check CHECK (period_end > period_start
    AND (status = 'draft' OR (total_usd IS NOT NULL AND exact_usd IS NOT NULL AND rounding_usd = total_usd - exact_usd AND opened_at IS NOT NULL))
    AND ((status = 'paid') = (paid_at IS NOT NULL)))`);
  // What the meter's tick and the periods schedule look for each time: drafts past their grace,
  // periods that have ended (a column the spend's updates leave alone, so they stay HOT).
  await knex.raw(`CREATE INDEX invoices_drafts ON invoices (closes_at) WHERE status = 'draft'`);
  await knex.raw('CREATE INDEX billing_accounts_period_end ON billing_accounts (current_period_end)');

  await knex.schema.createTable('invoice_lines', (t) => {
    t.text('invoice_id').notNullable().references('invoices.id');
    t.integer('position').notNullable();
    // No reference: an invoice outlives whatever happens to the job.
    t.text('job_id').notNullable();
    t.integer('attempt').notNullable();
    // Entries of an earlier period, recorded after its invoice opened.
    t.boolean('late').notNullable();
    t.specificType('cpu_seconds', 'numeric').notNullable();
    t.specificType('gpu_seconds', 'numeric').notNullable();
    t.specificType('gb_seconds', 'numeric').notNullable();
    t.specificType('exact_usd', 'numeric').notNullable();
    t.specificType('amount_usd', 'numeric(20,2)').notNullable();
    t.primary(['invoice_id', 'position']);
    t.unique(['invoice_id', 'job_id', 'attempt', 'late']);
  });

  await knex.schema.createTable('invoice_entries', (t) => {
    t.bigInteger('ledger_id').primary().references('usage_ledger.id');
    t.text('invoice_id').notNullable().references('invoices.id');
    t.index(['invoice_id']);
  });

  // Lines and entries belong to a draft until it opens; after that they are final. Checked per
  // statement, over the rows it touched.
  await knex.raw(`
    CREATE FUNCTION compute_invoice_parts_final() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE frozen text;
    BEGIN
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT i.id INTO frozen FROM new_rows n JOIN invoices i ON i.id = n.invoice_id WHERE i.status <> 'draft' LIMIT 1;
      END IF;
      IF frozen IS NULL AND TG_OP IN ('UPDATE', 'DELETE') THEN
        SELECT i.id INTO frozen FROM old_rows o JOIN invoices i ON i.id = o.invoice_id WHERE i.status <> 'draft' LIMIT 1;
      END IF;
      IF frozen IS NOT NULL THEN
        RAISE EXCEPTION 'invoice % is no longer a draft: its % never change', frozen, TG_TABLE_NAME;
      END IF;
      RETURN NULL;
    END $$`);
  for (const table of ['invoice_lines', 'invoice_entries']) {
    await knex.raw(`CREATE TRIGGER ${table}_final_insert AFTER INSERT ON ${table}
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION compute_invoice_parts_final()`);
    await knex.raw(`CREATE TRIGGER ${table}_final_update AFTER UPDATE ON ${table}
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION compute_invoice_parts_final()`);
    await knex.raw(`CREATE TRIGGER ${table}_final_delete AFTER DELETE ON ${table}
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION compute_invoice_parts_final()`);
  }

  // An open invoice keeps its period and figures; it may only become paid (and learn its Stripe id).
  await knex.raw(`
    CREATE FUNCTION compute_invoice_final() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        IF OLD.status <> 'draft' THEN RAISE EXCEPTION 'invoice % is %: it is never deleted', OLD.id, OLD.status; END IF;
        RETURN OLD;
      END IF;
      IF OLD.status = 'draft' THEN RETURN NEW; END IF;
      IF (NEW.id, NEW.workspace_id, NEW.period_start, NEW.period_end, NEW.closes_at, NEW.total_usd, NEW.exact_usd, NEW.rounding_usd, NEW.created_at, NEW.opened_at)
         IS DISTINCT FROM (OLD.id, OLD.workspace_id, OLD.period_start, OLD.period_end, OLD.closes_at, OLD.total_usd, OLD.exact_usd, OLD.rounding_usd, OLD.created_at, OLD.opened_at)
         OR NEW.status = 'draft' OR (OLD.status = 'paid' AND (NEW.status <> 'paid' OR NEW.paid_at IS DISTINCT FROM OLD.paid_at)) THEN
        RAISE EXCEPTION 'invoice % is %: only open → paid and its Stripe id may change', OLD.id, OLD.status;
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER invoices_final BEFORE UPDATE OR DELETE ON invoices FOR EACH ROW EXECUTE FUNCTION compute_invoice_final()',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS billing_accounts_period_end');
  await knex.schema.dropTable('invoice_entries');
  await knex.schema.dropTable('invoice_lines');
  await knex.schema.dropTable('invoices');
  await knex.raw('DROP FUNCTION IF EXISTS compute_invoice_parts_final()');
  await knex.raw('DROP FUNCTION IF EXISTS compute_invoice_final()');
}
