import type { Knex } from 'knex';
import { pendingEntry } from '../audit/log';
import type { Principal } from '../auth/principal';
import type { Step } from '../db/one-trip';
import { prepared } from '../db/prepared';
import { traceparentOf } from '../telemetry/tracing';
import type { StoredEnv } from './env-at-rest';
import { JOB_COLUMN_NAMES } from './record';
import type { Manifest } from './schemas';

// A submitted job's row as its submit inserts it (unacknowledged, src/jobs/submit.ts): built by
// knex where the insert varies (a managed job's region, an idempotent submit's conflict, the credit
// gate's statement around it), prepared where it does not (a workspace's own job), from the same
// columns.

/** A new row's ID and sealed env; `again` when an idempotent submit may find the row already made. */
export interface NewRow {
  id: string;
  env: StoredEnv;
  again: boolean;
}

/** A new row's columns but its region and its clocks, in the order of NEW_ROW_COLUMNS. */
function newRowColumns(principal: Principal, manifest: Manifest, row: NewRow): Record<NewRowColumn, unknown> {
  return {
    id: row.id,
    workspace_id: principal.workspaceId,
    type: manifest.type,
    command: manifest.command,
    env: JSON.stringify(row.env),
    labels: JSON.stringify(manifest.labels),
    selector: JSON.stringify(manifest.selector),
    resources: manifest.resources ? JSON.stringify(manifest.resources) : null,
    pool: manifest.pool,
    retry: JSON.stringify(manifest.retry),
    priority: manifest.priority,
    artifacts_spec: manifest.artifacts ? JSON.stringify(manifest.artifacts) : null,
    timeout_seconds: manifest.timeoutSeconds,
    state: 'QUEUED',
    submitted_with_key_id: principal.keyId ?? null,
    // The submit's span: the job's later parts (hand-outs, deliveries) join its trace.
    trace_parent: traceparentOf() ?? null,
    submitted_by: pendingEntry({ actor: principal.actor, origin: principal.origin, details: { type: manifest.type } }),
  };
}
const NEW_ROW_COLUMNS = [
  'id',
  'workspace_id',
  'type',
  'command',
  'env',
  'labels',
  'selector',
  'resources',
  'pool',
  'retry',
  'priority',
  'artifacts_spec',
  'timeout_seconds',
  'state',
  'submitted_with_key_id',
  'trace_parent',
  'submitted_by',
] as const;
type NewRowColumn = (typeof NEW_ROW_COLUMNS)[number];

/** A workspace's own job's row (no region), stamped by the database's clock. */
const insertStatement = prepared(
  'job_insert',
  `INSERT INTO jobs (${NEW_ROW_COLUMNS.join(', ')}, created_at, available_at)
   VALUES (${NEW_ROW_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}, now(), now())
   RETURNING ${JOB_COLUMN_NAMES.join(', ')}`,
);

/** The row's insert, RETURNING it: the database's clock stamps it, which the reconciler measures ages with. */
export function rowInsert(trx: Knex | Knex.Transaction, principal: Principal, manifest: Manifest, row: NewRow) {
  const now = trx.fn.now();
  return trx('jobs')
    .insert({
      ...newRowColumns(principal, manifest, row),
      // A managed job runs in its manifest's region, else its workspace's default one, read as it is inserted.
      region:
        manifest.pool !== 'managed'
          ? null
          : (manifest.region ??
            trx.raw('(SELECT default_region FROM workspaces WHERE id = ?)', [principal.workspaceId])),
      created_at: now,
      available_at: now,
    })
    .returning('*');
}

/** The hot path's insert (a workspace's own job, no quotas, no idempotency key): rowInsert's, prepared. */
export function insertStep(principal: Principal, manifest: Manifest, row: NewRow): Step {
  const columns = newRowColumns(principal, manifest, row);
  return { statement: insertStatement, values: NEW_ROW_COLUMNS.map((c) => columns[c]) };
}
