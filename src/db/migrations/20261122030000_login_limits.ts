import type { Knex } from 'knex';

// Login limits: each code remembers the client address that asked for it, so requests are
// counted per (e-mail, client), per client and per e-mail; wrong codes are counted per client.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('otp_codes', (t) => {
    t.text('client_ip');
    t.index(['client_ip', 'created_at']);
  });
  await knex.schema.createTable('otp_verify_failures', (t) => {
    t.bigIncrements('id');
    t.text('client_ip').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['client_ip', 'created_at']);
    // Rows older than the window are pruned by age.
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('otp_verify_failures');
  await knex.schema.alterTable('otp_codes', (t) => {
    t.dropIndex(['client_ip', 'created_at']);
    t.dropColumn('client_ip');
  });
}
