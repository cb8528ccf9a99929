import type { Knex } from 'knex';

// The usage ledger's statement triggers (the period's spend and the reservations' consumption,
// prepaid credit drawn, Stripe's meter events) act only on priced entries, and most entries are
// not: a self-hosted agent's, a hobby workspace's. Each trigger now returns at once when its
// statement inserted nothing it acts on, instead of running its every statement over the
// transition table (about 2 ms of PostgreSQL's CPU on every attempt's end).
//
// The gate goes in front of each function's body as it stands (pg_get_functiondef), so the
// bodies stay those of the migrations that wrote them.

const GATES = {
  // Its two updates skip entries of $0.
  compute_ledger_counted: `amount_usd <> 0`,
  // Draws and returns move credit for priced managed entries only.
  compute_credit_drawn: `pool = 'managed' AND amount_usd <> 0`,
  // Meter events and corrections: priced managed entries only.
  compute_meter_events_owed: `pool = 'managed' AND amount_usd <> 0`,
} as const;

const gate = (condition: string) =>
  `IF NOT EXISTS (SELECT 1 FROM new_rows WHERE ${condition}) THEN RETURN NULL; END IF;`;

/** Runs the function's definition again with `edit` applied to it; fails if the edit changed nothing. */
async function redefine(knex: Knex, fn: string, edit: (definition: string) => string): Promise<void> {
  const { rows } = await knex.raw('SELECT pg_get_functiondef(?::regproc) AS def', [fn]);
  const before = rows[0].def as string;
  const after = edit(before);
  if (after === before) throw new Error(`${fn}: its definition is not the one this migration edits`);
  await knex.raw(after.replace(/\?/g, '\\?'));
}

export async function up(knex: Knex): Promise<void> {
  for (const [fn, condition] of Object.entries(GATES))
    // The first BEGIN is the body's: none of the three has a DECLARE block that says BEGIN.
    await redefine(knex, fn, (def) => def.replace(/\bBEGIN\b/, `BEGIN\n      ${gate(condition)}`));
}

export async function down(knex: Knex): Promise<void> {
  for (const [fn, condition] of Object.entries(GATES))
    await redefine(knex, fn, (def) => def.replace(`\n      ${gate(condition)}`, ''));
}
