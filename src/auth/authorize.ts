import type { Knex } from 'knex';
import { appendAudit } from '../audit/log';
import type { Principal } from './principal';
import { type Action, REQUIRED_ROLE, type Role, atLeast, forbidden } from './roles';

/**
 * Lets `p` do `action` on `target` in its workspace, or refuses with 403 after recording the
 * attempt in the audit log (outcome `denied`): a refusal is written on its own, as there is no
 * change for it to join.
 */
export async function authorize(
  db: Knex,
  p: Principal,
  action: Action | string,
  target: { type: string; id: string },
  need: Role = REQUIRED_ROLE[action as Action],
): Promise<void> {
  if (p.role && atLeast(p.role, need)) return;
  await appendAudit(db, {
    workspaceId: p.workspaceId,
    actor: p.actor,
    action,
    target,
    outcome: 'denied',
    origin: p.origin,
    details: { requiredRole: need, role: p.role ?? null },
  });
  const refusal = forbidden(action, need);
  refusal.audited = true;
  throw refusal;
}

/** The audit fields of a change made by `p`. */
export const auditBy = (p: Principal) => ({ workspaceId: p.workspaceId, actor: p.actor, origin: p.origin });
