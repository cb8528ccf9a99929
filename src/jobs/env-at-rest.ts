import type { Knex } from 'knex';
import { open, seal } from '../crypto/aead';
import type { DataKeys } from '../crypto/data-keys';

// A job's env holds secrets: its row keeps it sealed with the workspace's data key, as
// `{"$sealed": {v, names, iv, data}}` (no env variable can be named `$sealed`). The names stay
// readable (records show them, values redacted); the values open only for the agent's assignment.
// The job's workspace and ID are authenticated data: copied to another row, it does not open.

export const REDACTED = '[redacted]';

interface SealedEnv {
  $sealed: { v: 1; names: string[]; iv: string; data: string };
}
/** What `jobs.env` holds: sealed, or `{}`, or a clear map written before sealing (sealed at the next start). */
export type StoredEnv = SealedEnv | Record<string, string>;

const aadOf = (workspaceId: string, jobId: string) => `job-env:${workspaceId}:${jobId}`;
const isSealed = (stored: StoredEnv): stored is SealedEnv => typeof (stored as SealedEnv).$sealed === 'object';

export async function sealEnv(
  keys: DataKeys,
  workspaceId: string,
  jobId: string,
  env: Record<string, string>,
): Promise<StoredEnv> {
  const names = Object.keys(env);
  if (names.length === 0) return {};
  const { iv, data } = seal(await keys.of(workspaceId), JSON.stringify(env), aadOf(workspaceId, jobId));
  return { $sealed: { v: 1, names, iv: iv.toString('base64'), data: data.toString('base64') } };
}

/** The env's values, for the agent that runs the job. */
export async function openEnv(
  keys: DataKeys,
  workspaceId: string,
  jobId: string,
  stored: StoredEnv | null | undefined,
): Promise<Record<string, string>> {
  if (!stored) return {};
  if (!isSealed(stored)) return stored;
  const { iv, data } = stored.$sealed;
  const opened = open(
    await keys.of(workspaceId),
    { iv: Buffer.from(iv, 'base64'), data: Buffer.from(data, 'base64') },
    aadOf(workspaceId, jobId),
  );
  if (!opened) throw new Error(`job ${jobId}: its env does not open (altered, or another job's)`);
  return JSON.parse(opened.toString('utf8')) as Record<string, string>;
}

/** The env's names, each with its value redacted: what a record shows. */
export function redactedEnv(stored: StoredEnv | null | undefined): Record<string, string> {
  const names = !stored ? [] : isSealed(stored) ? stored.$sealed.names : Object.keys(stored);
  return Object.fromEntries(names.map((n) => [n, REDACTED]));
}

/** Rows sealed per statement by sealStoredEnvs. */
const BATCH = 500;

/**
 * Seals every env still clear in its row (written before sealing existed). Run at a worker's
 * start; each row changes only if it still holds what was read.
 */
export async function sealStoredEnvs(db: Knex, keys: DataKeys): Promise<number> {
  let sealed = 0;
  for (;;) {
    const rows: Array<{ id: string; workspace_id: string; env: Record<string, string> }> = await db('jobs')
      .whereRaw(`env <> '{}'::jsonb AND NOT jsonb_exists(env, '$sealed')`)
      .select('id', 'workspace_id', 'env')
      .limit(BATCH);
    if (rows.length === 0) return sealed;
    for (const row of rows) {
      const env = await sealEnv(keys, row.workspace_id, row.id, row.env);
      sealed += await db('jobs')
        .where({ id: row.id })
        .whereRaw('env = ?::jsonb', [JSON.stringify(row.env)])
        .update({ env: JSON.stringify(env) });
    }
  }
}
