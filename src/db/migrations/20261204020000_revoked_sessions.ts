import type { Knex } from 'knex';

// Sessions ended by sign-out before their token expires, by the token's `jti`: every instance
// refuses them (each hears the revocation on the credentials channel). A row is needed only until
// the token would have expired anyway.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('revoked_sessions', (t) => {
    t.text('jti').primary();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('revoked_sessions');
}
