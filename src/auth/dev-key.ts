import fs from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { authenticateApiKey, createApiKey } from './api-keys';
import { isRefused } from './principal';

/**
 * The key `npm run dev` prints. Kept in the data folder (mode 0600) so a restart prints the same
 * working key; a new one is minted if it was revoked or the database was reset.
 */
export async function ensureDevApiKey(db: Knex, dataDir: string, workspaceId: string): Promise<string> {
  const file = path.join(dataDir, 'dev-api-key');
  const saved = await fs.readFile(file, 'utf8').then((s) => s.trim(), () => '');
  const known = saved ? await authenticateApiKey(db, saved) : null;
  if (known && !isRefused(known) && known.workspaceId === workspaceId) return saved;
  const { key } = await createApiKey(db, { workspaceId, name: 'dev', kind: 'user' });
  await fs.writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}
