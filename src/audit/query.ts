import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Principal } from '../auth/principal';
import { type PageRequest, decodeCursor, pageOf } from '../shared/cursor';
import { auditRecordOf } from './log';

export interface AuditFilter {
  /** The actor's ID (a user, token, key or node). */
  actor?: string;
  action?: string[];
  targetId?: string;
  since?: Date;
  until?: Date;
}

/** Rows an export reads per page: its memory is bounded by this, not by the log. */
const EXPORT_PAGE = 500;

/** The role rule, checked and audited by auth (injected: auth writes the audit log, so audit does not import it). */
export type Authorize = (p: Principal, action: 'audit.read', target: { type: string; id: string }) => Promise<void>;

export function createAuditQuery({ db, authorize }: { db: Knex; authorize: Authorize }) {
  const matching = (workspaceId: string, f: AuditFilter) => {
    const q = db('audit_log').where({ workspace_id: workspaceId });
    if (f.actor) q.where({ actor_id: f.actor });
    if (f.action?.length) q.whereIn('action', f.action);
    if (f.targetId) q.where({ target_id: f.targetId });
    if (f.since) q.where('at', '>=', f.since);
    if (f.until) q.where('at', '<', f.until);
    return q;
  };
  const target = (p: Principal) => ({ type: 'workspace', id: p.workspaceId });

  return {
    /** Newest first. */
    async list(p: Principal, f: AuditFilter, page: PageRequest) {
      await authorize(p, 'audit.read', target(p));
      const q = matching(p.workspaceId, f);
      if (page.cursor) q.where('id', '<', decodeCursor(page.cursor, 'aud', 'pageToken'));
      return pageOf(await q.orderBy('id', 'desc').limit(page.limit + 1), page.limit, auditRecordOf);
    },

    /**
     * Every matching entry up to the last one at the start (an export ends however fast the log
     * grows), oldest first, one JSON object per line, read in pages by ID as the consumer pulls:
     * no connection is held between pages, so a consumer that stops reading holds none.
     * `stillValid` is asked before each page after the first; false destroys the stream before
     * its end. Destroy the stream to stop early.
     */
    async export(p: Principal, f: AuditFilter, o: { stillValid: () => Promise<boolean> }): Promise<Readable> {
      await authorize(p, 'audit.read', target(p));
      const { last } = (await db('audit_log').where({ workspace_id: p.workspaceId }).max('id as last').first()) as {
        last: string | null;
      };
      const page = async (after: string | null): Promise<Array<Record<string, unknown>>> => {
        if (last === null) return [];
        const q = matching(p.workspaceId, f).where('id', '<=', last);
        if (after !== null) q.where('id', '>', after);
        return q.orderBy('id', 'asc').limit(EXPORT_PAGE);
      };
      return pagedLines(page, o.stillValid);
    },
  };
}

/** The pages as JSONL, the next one read only once the consumer has taken the previous one. */
function pagedLines(
  page: (after: string | null) => Promise<Array<Record<string, unknown>>>,
  stillValid: () => Promise<boolean>,
): Readable {
  let after: string | null = null;
  const pull = async (out: Readable) => {
    // A credential revoked since the last page reads nothing more.
    if (after !== null && !(await stillValid())) {
      out.destroy();
      return;
    }
    const rows = await page(after);
    if (out.destroyed) return;
    if (rows.length > 0) {
      after = rows[rows.length - 1].id as string;
      out.push(rows.map((r) => `${JSON.stringify(auditRecordOf(r))}\n`).join(''));
    }
    if (rows.length < EXPORT_PAGE) out.push(null);
  };
  return new Readable({
    // Not called again until the page pushed is mostly taken: a stalled consumer stops the reads.
    read() {
      pull(this).catch((err: unknown) => this.destroy(err as Error));
    },
  });
}

export type AuditQuery = ReturnType<typeof createAuditQuery>;
