import type { Knex } from 'knex';
import type { Actor } from '../audit/log';

// Prepaid credit's movements that are not usage (CONTRACT §9; the ledger and the draws that usage
// makes are in the credit_ledger migration): an operator's grants and adjustments, and expiries.
// Each locks the account row first, as a draw does, so movements of one workspace queue.

type Trx = Knex.Transaction;

const lockAccount = (trx: Trx, workspaceId: string) =>
  trx.raw('SELECT 1 FROM billing_accounts WHERE workspace_id = ? FOR UPDATE', [workspaceId]);

/** A grant of `amountUsd` (an exact decimal of at most 6 places, > 0), expiring at `expiresAt` if given. */
export async function grantCredit(
  trx: Trx,
  g: { workspaceId: string; amountUsd: string; expiresAt?: Date; actor: Actor; note?: string },
): Promise<void> {
  await lockAccount(trx, g.workspaceId);
  await trx.raw(
    `INSERT INTO credit_ledger (workspace_id, kind, amount_usd, expires_at, actor, note) VALUES (?, 'grant', ?::numeric, ?, ?::jsonb, ?)`,
    [g.workspaceId, g.amountUsd, g.expiresAt ?? null, JSON.stringify(g.actor), g.note ?? null],
  );
}

/**
 * Brings the balance to `targetUsd`: a grant of the difference when it is higher, an adjustment
 * taken from the grants (soonest expiry first, as draws take) when it is lower.
 */
export async function setCreditBalance(trx: Trx, workspaceId: string, targetUsd: string, actor: Actor): Promise<void> {
  await lockAccount(trx, workspaceId);
  const { rows } = await trx.raw(
    'SELECT ?::numeric - credit_usd AS diff FROM billing_accounts WHERE workspace_id = ?',
    [targetUsd, workspaceId],
  );
  const diff = rows[0]?.diff as string | undefined;
  if (diff === undefined || /^-?0*(\.0*)?$/.test(diff)) return;
  if (!diff.startsWith('-'))
    return grantCredit(trx, { workspaceId, amountUsd: diff, actor, note: `balance set to ${targetUsd}` });
  await trx.raw(`SELECT compute_credit_take(?, ?::numeric, 'adjustment', NULL, NULL, NULL, ?::jsonb, ?)`, [
    workspaceId,
    diff.slice(1),
    JSON.stringify(actor),
    `balance set to ${targetUsd}`,
  ]);
}

/**
 * Grants whose expiry has come by `at` lose what they have left, each once (its expiry entry is
 * unique). Returns how many grants expired.
 */
export async function expireCredit(db: Knex, at: Date): Promise<number> {
  let expired = 0;
  for (;;) {
    const due: Array<{ id: string; workspace_id: string }> = await db('credit_grants')
      .where({ expired: false })
      .where('expires_at', '<=', at)
      .orderBy('expires_at')
      .limit(200)
      .select('id', 'workspace_id');
    for (const g of due) {
      await db.transaction(async (trx) => {
        await lockAccount(trx, g.workspace_id);
        const { rowCount } = await trx.raw(
          `INSERT INTO credit_ledger (workspace_id, kind, amount_usd, grant_id, note)
           SELECT workspace_id, 'expiry', -remaining_usd, id, 'expired' FROM credit_grants WHERE id = ? AND NOT expired
           ON CONFLICT DO NOTHING`,
          [g.id],
        );
        expired += rowCount ?? 0;
      });
    }
    if (due.length < 200) return expired;
  }
}
