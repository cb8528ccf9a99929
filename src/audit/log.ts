import type { Knex } from 'knex';
import { newId } from '../shared/ids';

// The audit log (CONTRACT §5): one entry per change of state and per refused attempt, written by
// the caller in the transaction of the change, so a rolled-back change leaves no entry. The table
// refuses UPDATE, DELETE and TRUNCATE (see the migration): entries are never changed.

export type ActorType = 'user' | 'token' | 'key' | 'node' | 'system';

export interface Actor {
  type: ActorType;
  id: string;
  email?: string;
}

/** Where a request came from, as the entry records it. */
export interface Origin {
  ip?: string;
  userAgent?: string;
}

export interface AuditEntry {
  workspaceId: string;
  actor: Actor;
  action: string;
  target: { type: string; id: string };
  outcome?: 'success' | 'denied';
  origin?: Origin;
  details?: Record<string, unknown>;
}

export interface AuditRecord {
  id: string;
  at: string;
  actor: Actor;
  action: string;
  target: { type: string; id: string };
  workspaceId: string;
  outcome: 'success' | 'denied';
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
}

const USER_AGENT_MAX = 512;

/** Appends one entry; `db` is the change's own transaction where there is one. */
export async function appendAudit(db: Knex | Knex.Transaction, e: AuditEntry): Promise<void> {
  await db('audit_log').insert({
    id: newId('aud'),
    workspace_id: e.workspaceId,
    actor_type: e.actor.type,
    actor_id: e.actor.id,
    actor_email: e.actor.email ?? null,
    action: e.action,
    target_type: e.target.type,
    target_id: e.target.id,
    outcome: e.outcome ?? 'success',
    ip: e.origin?.ip ?? null,
    user_agent: e.origin?.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
    details: JSON.stringify(e.details ?? {}),
  });
}

export function auditRecordOf(r: Record<string, unknown>): AuditRecord {
  return {
    id: r.id as string,
    at: new Date(r.at as Date).toISOString(),
    actor: {
      type: r.actor_type as ActorType,
      id: r.actor_id as string,
      ...(r.actor_email ? { email: r.actor_email as string } : {}),
    },
    action: r.action as string,
    target: { type: r.target_type as string, id: r.target_id as string },
    workspaceId: r.workspace_id as string,
    outcome: r.outcome as 'success' | 'denied',
    ip: (r.ip as string | null) ?? null,
    userAgent: (r.user_agent as string | null) ?? null,
    details: (r.details as Record<string, unknown>) ?? {},
  };
}

/**
 * An entry to be written later by SQL (see AUDIT_INSERT_FROM_PENDING): its id and actor are fixed
 * now, by the request that makes the change.
 */
export function pendingEntry(e: Pick<AuditEntry, 'actor' | 'origin' | 'details'>): string {
  return JSON.stringify({
    id: newId('aud'),
    actor: e.actor,
    ip: e.origin?.ip ?? null,
    userAgent: e.origin?.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
    details: e.details ?? {},
  });
}

/**
 * The INSERT of a pending entry, for a CTE: `source` names a relation with columns `pending`
 * (pendingEntry's JSON), `workspace_id` and `target_id`. The entry's id was fixed with it, so
 * writing it again (a second path reaching the same change) adds nothing.
 */
export const auditInsertFromPending = (source: string, action: string, targetType: string) => `
  INSERT INTO audit_log (id, workspace_id, actor_type, actor_id, actor_email, action, target_type, target_id, outcome, ip, user_agent, details)
  SELECT p.pending->>'id', p.workspace_id, p.pending->'actor'->>'type', p.pending->'actor'->>'id', p.pending->'actor'->>'email',
         '${action}', '${targetType}', p.target_id, 'success', p.pending->>'ip', p.pending->>'userAgent', coalesce(p.pending->'details', '{}'::jsonb)
  FROM ${source} p WHERE p.pending IS NOT NULL
  ON CONFLICT (id) DO NOTHING`;
