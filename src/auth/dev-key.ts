import fs from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { authenticateApiKey, createApiKey } from './api-keys';
import { isRefused } from './principal';

/**
 * The key `npm run dev` prints (or, `kind: managed`, the managed-pool key its managed agent runs
 * with). Kept in the data folder (mode 0600) so a restart prints the same working key; a new one
 * is minted if it was revoked or the database was reset.
 */
export async function ensureDevApiKey(
  db: Knex,
  dataDir: string,
  workspaceId: string,
  kind: 'user' | 'managed' = 'user',
): Promise<string> {
  const file = path.join(dataDir, kind === 'user' ? 'dev-api-key' : 'dev-managed-key');
  const saved = await fs.readFile(file, 'utf8').then(
    (s) => s.trim(),
    () => '',
  );
  const known = saved ? await authenticateApiKey(db, saved) : null;
  if (known && !isRefused(known) && known.workspaceId === workspaceId && known.kind === kind) return saved;
  const { key } = await createApiKey(db, { workspaceId, name: kind === 'user' ? 'dev' : 'dev managed pool', kind });
  await fs.writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}
