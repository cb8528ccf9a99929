import type { Knex } from 'knex';
import { type Actor, type Origin, appendAudit } from '../audit/log';
import { AppError, notFound } from '../shared/errors';
import { compareUsd, parseUsdAmount, usdNumber } from './money';

// A workspace's spending caps (CONTRACT §9): what is in force, and what a PATCH asked for, which
// the meter's next tick applies (src/billing/meter.ts). Caps are exact decimals, null for none.

export interface CapsRecord {
  softCapUsd: number | null;
  hardCapUsd: number | null;
  pending: { softCapUsd: number | null; hardCapUsd: number | null; requestedAt: string } | null;
}

export interface CapsChange {
  softCapUsd?: number | null;
  hardCapUsd?: number | null;
}

const figure = (v: string | null | undefined) => (v === null || v === undefined ? null : usdNumber(v));

function recordOf(row: {
  soft_cap_usd: string | null;
  hard_cap_usd: string | null;
  pending_caps: Record<string, string | null> | null;
  pending_requested_at: Date | null;
}): CapsRecord {
  const pending = row.pending_caps;
  return {
    softCapUsd: figure(row.soft_cap_usd),
    hardCapUsd: figure(row.hard_cap_usd),
    // What will be in force after the tick: the asked-for caps over the current ones.
    pending: pending
      ? {
          softCapUsd: 'softCapUsd' in pending ? figure(pending.softCapUsd) : figure(row.soft_cap_usd),
          hardCapUsd: 'hardCapUsd' in pending ? figure(pending.hardCapUsd) : figure(row.hard_cap_usd),
          requestedAt: new Date(row.pending_requested_at!).toISOString(),
        }
      : null,
  };
}

/** A cap as sent (a JSON number or null) as an exact decimal, or a field error. */
function capOf(path: string, value: number | null, fields: Array<{ path: string; message: string }>): string | null {
  if (value === null) return null;
  try {
    return parseUsdAmount(String(value));
  } catch (err) {
    fields.push({ path, message: (err as Error).message });
    return null;
  }
}

export function createLimits({ db }: { db: Knex }) {
  const read = async (q: Knex | Knex.Transaction, workspaceId: string) => {
    const row = await q('billing_accounts')
      .where({ workspace_id: workspaceId })
      .first('soft_cap_usd', 'hard_cap_usd', 'pending_caps', 'pending_requested_at');
    if (!row) throw notFound('Workspace');
    return row;
  };
  return {
    get: async (workspaceId: string): Promise<CapsRecord> => recordOf(await read(db, workspaceId)),

    /** Records the change as pending (merged over one already pending), audited; the next tick applies it. */
    async request(workspaceId: string, change: CapsChange, by: { actor: Actor; origin?: Origin }): Promise<CapsRecord> {
      const fields: Array<{ path: string; message: string }> = [];
      const asked: Record<string, string | null> = {};
      for (const key of ['softCapUsd', 'hardCapUsd'] as const) {
        if (change[key] !== undefined) asked[key] = capOf(key, change[key]!, fields);
      }
      if (Object.keys(asked).length === 0) fields.push({ path: '', message: 'name softCapUsd, hardCapUsd or both' });
      if (fields.length) throw new AppError('request.invalid', 'The caps are invalid', { fields });
      return db.transaction(async (trx) => {
        const row = await trx('billing_accounts')
          .where({ workspace_id: workspaceId })
          .forUpdate()
          .first('soft_cap_usd', 'hard_cap_usd', 'pending_caps');
        if (!row) throw notFound('Workspace');
        const pending = { ...(row.pending_caps ?? {}), ...asked };
        const soft = 'softCapUsd' in pending ? pending.softCapUsd : row.soft_cap_usd;
        const hard = 'hardCapUsd' in pending ? pending.hardCapUsd : row.hard_cap_usd;
        if (soft !== null && hard !== null && compareUsd(soft, hard) > 0) {
          throw new AppError('request.invalid', 'The soft cap is above the hard cap', {
            fields: [{ path: 'softCapUsd', message: `must not be above the hard cap (${hard})` }],
          });
        }
        const [updated] = await trx('billing_accounts')
          .where({ workspace_id: workspaceId })
          .update({
            pending_caps: JSON.stringify(pending),
            pending_requested_at: trx.fn.now(),
            updated_at: trx.fn.now(),
          })
          .returning(['soft_cap_usd', 'hard_cap_usd', 'pending_caps', 'pending_requested_at']);
        await appendAudit(trx, {
          workspaceId,
          ...by,
          action: 'billing.limits_update',
          target: { type: 'workspace', id: workspaceId },
          details: { requested: asked },
        });
        return recordOf(updated);
      });
    },
  };
}
