import type { Knex } from 'knex';
import * as createCoreTables from './migrations/20261122000000_create_core_tables';
import * as accounts from './migrations/20261122010000_accounts';
import * as artifacts from './migrations/20261122020000_artifacts';
import * as loginLimits from './migrations/20261122030000_login_limits';
import * as logBudget from './migrations/20261122040000_log_budget';
import * as claimsAndAgentOwners from './migrations/20261122050000_add_claims_and_agent_owners';
import * as liveJobsIndex from './migrations/20261122060000_live_jobs_index';
import * as credentialNotifyAndRateLeases from './migrations/20261123000000_credential_notify_and_rate_leases';
import * as surfaceBIdentity from './migrations/20261124000000_surface_b_identity';
import * as auditedSubmits from './migrations/20261125000000_audited_submits';
import * as idempotencyKeys from './migrations/20261126000000_idempotency_keys';
import * as agentDeregistration from './migrations/20261126010000_agent_deregistration';
import * as webhooks from './migrations/20261127000000_webhooks';
import * as openJobsIndex from './migrations/20261128000000_open_jobs_index';
import * as workspaceCreators from './migrations/20261129010000_add_workspace_creators';
import * as jobLogState from './migrations/20261130000000_create_job_log_state';
import * as dropJobArtifactsCopy from './migrations/20261130010000_drop_job_artifacts_copy';
import * as managedPool from './migrations/20261201000000_managed_pool';
import * as billingPlans from './migrations/20261201010000_billing_plans';
import * as usageLedger from './migrations/20261201020000_usage_ledger';
import * as stripe from './migrations/20261202000000_stripe';
import * as invoices from './migrations/20261202010000_invoices';
import * as workspaceDataKeys from './migrations/20261203000000_workspace_data_keys';
import * as agentCapacity from './migrations/20261204000000_agent_capacity';
import * as managedSubmitRefusals from './migrations/20261204010000_managed_submit_refusals';
import * as revokedSessions from './migrations/20261204020000_revoked_sessions';
import * as creditLedger from './migrations/20261205000000_credit_ledger';

// Migrations are imported, not discovered on disk, so they run the same from TS sources and from
// a compiled build.
const MIGRATIONS: Record<string, { up(k: Knex): Promise<void>; down(k: Knex): Promise<void> }> = {
  '20261122000000_create_core_tables': createCoreTables,
  '20261122010000_accounts': accounts,
  '20261122020000_artifacts': artifacts,
  '20261122030000_login_limits': loginLimits,
  '20261122040000_log_budget': logBudget,
  '20261122050000_add_claims_and_agent_owners': claimsAndAgentOwners,
  '20261122060000_live_jobs_index': liveJobsIndex,
  '20261123000000_credential_notify_and_rate_leases': credentialNotifyAndRateLeases,
  '20261124000000_surface_b_identity': surfaceBIdentity,
  '20261125000000_audited_submits': auditedSubmits,
  '20261126000000_idempotency_keys': idempotencyKeys,
  '20261126010000_agent_deregistration': agentDeregistration,
  '20261127000000_webhooks': webhooks,
  '20261128000000_open_jobs_index': openJobsIndex,
  '20261129010000_add_workspace_creators': workspaceCreators,
  '20261130000000_create_job_log_state': jobLogState,
  '20261130010000_drop_job_artifacts_copy': dropJobArtifactsCopy,
  '20261201000000_managed_pool': managedPool,
  '20261201010000_billing_plans': billingPlans,
  '20261201020000_usage_ledger': usageLedger,
  '20261202000000_stripe': stripe,
  '20261202010000_invoices': invoices,
  '20261203000000_workspace_data_keys': workspaceDataKeys,
  '20261204000000_agent_capacity': agentCapacity,
  '20261204010000_managed_submit_refusals': managedSubmitRefusals,
  '20261204020000_revoked_sessions': revokedSessions,
  '20261205000000_credit_ledger': creditLedger,
};

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => MIGRATIONS[name],
};

export async function migrateLatest(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource: source });
}

/** Names of the migrations this build knows that the database has not applied (readiness). */
export async function pendingMigrations(db: Knex): Promise<string[]> {
  const [, pending] = (await db.migrate.list({ migrationSource: source })) as [unknown[], Array<{ file?: string } | string>];
  return pending.map((m) => (typeof m === 'string' ? m : (m.file ?? String(m))));
}
