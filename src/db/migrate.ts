import type { Knex } from 'knex';

interface Migration {
  up(k: Knex): Promise<void>;
  down(k: Knex): Promise<void>;
}

/**
 * Every migration, by its file name in ./migrations, in the order it runs: listed once here, not
 * discovered on disk, so they run the same from TS sources and from a compiled build. A new one
 * goes last, named after the newest (`npm run migration:new <name>` names it): one that sorted
 * before a migration already applied would run last on existing databases but in the middle on
 * fresh ones (test/unit/migrations.test.ts refuses it).
 */
export const MIGRATION_NAMES: readonly string[] = [
  '20261122000000_create_core_tables',
  '20261122010000_accounts',
  '20261122020000_artifacts',
  '20261122030000_login_limits',
  '20261122040000_log_budget',
  '20261122050000_add_claims_and_agent_owners',
  '20261122060000_live_jobs_index',
  '20261123000000_credential_notify_and_rate_leases',
  '20261124000000_surface_b_identity',
  '20261125000000_audited_submits',
  '20261126000000_idempotency_keys',
  '20261126010000_agent_deregistration',
  '20261127000000_webhooks',
  '20261128000000_open_jobs_index',
  '20261129010000_add_workspace_creators',
  '20261130000000_create_job_log_state',
  '20261130010000_drop_job_artifacts_copy',
  '20261201000000_managed_pool',
  '20261201010000_billing_plans',
  '20261201020000_usage_ledger',
  '20261202000000_stripe',
  '20261202010000_invoices',
  '20261203000000_workspace_data_keys',
  '20261204000000_agent_capacity',
  '20261204010000_managed_submit_refusals',
  '20261204020000_revoked_sessions',
  '20261205000000_credit_ledger',
  '20261205010000_job_trace_context',
  '20261205020000_usage_triggers_skip_unpriced',
  '20261206000000_job_log_followed',
];

// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = (name: string): Migration => require(`./migrations/${name}`) as Migration;

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => [...MIGRATION_NAMES],
  getMigrationName: (name) => name,
  getMigration: async (name) => load(name),
};

export async function migrateLatest(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource: source });
}

/** Names of the migrations this build knows that the database has not applied (readiness). */
export async function pendingMigrations(db: Knex): Promise<string[]> {
  const [, pending] = (await db.migrate.list({ migrationSource: source })) as [
    unknown[],
    Array<{ file?: string } | string>,
  ];
  return pending.map((m) => (typeof m === 'string' ? m : (m.file ?? String(m))));
}
