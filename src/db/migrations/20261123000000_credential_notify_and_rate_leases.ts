import type { Knex } from 'knex';

// Credentials are cached in each API instance. Every change that can withdraw one (a revoked or
// deleted key, a membership removed or changed) is announced by a trigger on its table, so no
// writer (service, operator command, a hand-run UPDATE) can forget to tell the caches.
//
// rate_limits keeps rate-limiter-flexible's shape (key, points, expire), now read as leases:
// `points` are the requests handed to API instances in the window; `lim` and `granted` let one
// upsert cap a lease at the limit and say how much of it was granted.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION compute_notify_credential() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('compute_credentials', 'all');
      ELSIF TG_TABLE_NAME = 'api_keys' THEN
        PERFORM pg_notify('compute_credentials', 'key:' || OLD.id);
      ELSE
        PERFORM pg_notify('compute_credentials', 'member:' || OLD.user_id || ':' || OLD.workspace_id);
      END IF;
      RETURN NULL;
    END $$`);
  // The last-used stamp changes nothing a cache holds: it alone does not notify.
  await knex.raw(`
    CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
    EXECUTE FUNCTION compute_notify_credential()`);
  await knex.raw(
    `CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION compute_notify_credential()`,
  );
  await knex.raw(
    `CREATE TRIGGER api_keys_truncated AFTER TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION compute_notify_credential()`,
  );
  await knex.raw(`
    CREATE TRIGGER workspace_members_changed AFTER UPDATE OR DELETE ON workspace_members FOR EACH ROW
    EXECUTE FUNCTION compute_notify_credential()`);
  await knex.raw(
    `CREATE TRIGGER workspace_members_truncated AFTER TRUNCATE ON workspace_members FOR EACH STATEMENT EXECUTE FUNCTION compute_notify_credential()`,
  );

  await knex.schema.alterTable('rate_limits', (t) => {
    t.integer('lim');
    t.integer('granted');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('rate_limits', (t) => {
    t.dropColumn('granted');
    t.dropColumn('lim');
  });
  for (const [trigger, table] of [
    ['workspace_members_truncated', 'workspace_members'],
    ['workspace_members_changed', 'workspace_members'],
    ['api_keys_truncated', 'api_keys'],
    ['api_keys_deleted', 'api_keys'],
    ['api_keys_changed', 'api_keys'],
  ]) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${trigger} ON ${table}`);
  }
  await knex.raw('DROP FUNCTION IF EXISTS compute_notify_credential()');
}
