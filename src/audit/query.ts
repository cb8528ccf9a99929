import { Transform, type Readable } from 'node:stream';
import type { Knex } from 'knex';
import { authorize } from '../auth/authorize';
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

/** Rows the export's cursor fetches per round trip: memory is bounded by this, not by the log. */
const EXPORT_BATCH = 500;

export function createAuditQuery({ db }: { db: Knex }) {
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
      await authorize(db, p, 'audit.read', target(p));
      const q = matching(p.workspaceId, f);
      if (page.cursor) q.where('id', '<', decodeCursor(page.cursor, 'aud', 'pageToken'));
      return pageOf(await q.orderBy('id', 'desc').limit(page.limit + 1), page.limit, auditRecordOf);
    },

    /**
     * Every matching entry, oldest first, one JSON object per line, read through a server-side
     * cursor: an export of any size holds one batch in memory. Destroy the stream to stop early
     * (its connection goes back to the pool).
     */
    async export(p: Principal, f: AuditFilter): Promise<Readable> {
      await authorize(db, p, 'audit.read', target(p));
      const rows = matching(p.workspaceId, f).orderBy('id', 'asc').stream({ batchSize: EXPORT_BATCH, highWaterMark: EXPORT_BATCH });
      const lines = new Transform({
        writableObjectMode: true,
        transform(row: Record<string, unknown>, _enc, done) {
          done(null, `${JSON.stringify(auditRecordOf(row))}\n`);
        },
      });
      rows.on('error', (err) => lines.destroy(err));
      lines.on('close', () => rows.destroy());
      return rows.pipe(lines);
    },
  };
}

export type AuditQuery = ReturnType<typeof createAuditQuery>;
