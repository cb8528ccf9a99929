import type { Knex } from 'knex';
import type { SharedSettings } from '../config';
import { resolveOperatorKeys } from '../crypto/operator-keys';
import type { SecretBox } from './secret-box';

/** The keys that seal webhook secrets at rest: WEBHOOK_SECRET_KEYS (required in production). */
export const resolveWebhookSecretKeys = (config: Pick<SharedSettings, 'webhooks' | 'dataDir'>): Promise<Buffer[]> =>
  resolveOperatorKeys(config, {
    configured: config.webhooks.secretKeys,
    variable: 'WEBHOOK_SECRET_KEYS',
    file: 'webhook-secret-key',
  });

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
    const reseal = (stored: string | null) =>
      stored === null || box.isCurrent(stored) ? stored : box.seal(box.open(stored, row.id), row.id);
    const changed = await db('webhooks')
      .where({ id: row.id, secret: row.secret })
      .where((q) =>
        row.previous_secret === null ? q.whereNull('previous_secret') : q.where('previous_secret', row.previous_secret),
      )
      .update({ secret: reseal(row.secret), previous_secret: reseal(row.previous_secret) });
    sealed += changed;
  }
  return sealed;
}
