import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Config } from '../config';
import type { SecretBox } from './secret-box';

/**
 * The keys that seal webhook secrets at rest: WEBHOOK_SECRET_KEYS when set. Production refuses to
 * start without it (every API and worker must share it). Elsewhere one is made once and kept in
 * the data folder, so `npm run dev` and the tests need no setup and endpoints survive a restart.
 */
export async function resolveWebhookSecretKeys(config: Config): Promise<Buffer[]> {
  if (config.webhooks.secretKeys?.length) return config.webhooks.secretKeys;
  if (config.env === 'production') {
    throw new Error('WEBHOOK_SECRET_KEYS is required in production (base64 of 32 random bytes, e.g. `openssl rand -base64 32`, the same on every API and worker)');
  }
  const file = path.join(config.dataDir, 'webhook-secret-key');
  const saved = Buffer.from(await fs.readFile(file, 'utf8').then((s) => s.trim(), () => ''), 'base64');
  if (saved.length === 32) return [saved];
  const key = randomBytes(32);
  await fs.mkdir(config.dataDir, { recursive: true });
  try {
    await fs.writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return [key];
  } catch (err) {
    // Another process on the same data folder made it first: use theirs.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return [Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64')];
  }
}

/**
 * Seals again, with the current key, every stored secret that is not: clear ones written before
 * sealing existed, and ones sealed with a key that is no longer first. Run at each start, so after
 * one restart on a new key list nothing needs the older keys. Each row changes only if it still
 * holds what was read, so instances starting together do not undo each other.
 */
export async function sealStoredSecrets(db: Knex, box: SecretBox): Promise<number> {
  const current = `v1:${box.currentKeyId}:%`;
  const rows: Array<{ id: string; secret: string; previous_secret: string | null }> = await db('webhooks')
    .whereNot('secret', 'like', current)
    .orWhere((q) => q.whereNotNull('previous_secret').whereNot('previous_secret', 'like', current))
    .select('id', 'secret', 'previous_secret');
  let sealed = 0;
  for (const row of rows) {
    const reseal = (stored: string | null) => (stored === null || box.isCurrent(stored) ? stored : box.seal(box.open(stored, row.id), row.id));
    const changed = await db('webhooks')
      .where({ id: row.id, secret: row.secret })
      .where((q) => (row.previous_secret === null ? q.whereNull('previous_secret') : q.where('previous_secret', row.previous_secret)))
      .update({ secret: reseal(row.secret), previous_secret: reseal(row.previous_secret) });
    sealed += changed;
  }
  return sealed;
}
