import type { Knex } from 'knex';
import { appendAudit } from '../audit/log';
import { expireCredit } from './credit';
import { CREDIT_SQL } from './gate';
import { openDueInvoices } from './invoices';
import { meterRunning } from './ledger';
import { DEFAULT_PERIODS, type PeriodSettings, closePeriods } from './periods';

// One meter tick (CONTRACT §9), run by the meter's schedule for the window ending at its
// scheduled time. Each step is idempotent for that window, so a tick retried after a crash, or
// run twice, changes nothing the first run did: periods close once (with the periods schedule,
// whichever comes first), pending caps apply once, the ledger's keys refuse a second entry, a
// soft-cap crossing is noted once per period, a draft invoice opens once.

const SYSTEM = { type: 'system', id: 'meter' } as const;
const BATCH = 2000;

export interface MeterReport {
  windowEnd: string;
  entries: number;
  periodsRolled: number;
  invoicesOpened: number;
  capsApplied: number;
  /** Credit grants that expired by the window's end. */
  creditsExpired: number;
  softCapsReached: number;
  /** Managed jobs to stop for a hard cap that no longer covers what they reserved, newest first. */
  stops: string[];
}

export interface MeterOptions {
  /** How long a cancelled job may still run (the cancel grace): what stopping it may still cost. */
  cancelGraceSeconds: number;
  /** Running attempts metered per statement (each batch commits on its own). */
  batch?: number;
  /** Called after each committed step: the activity heartbeats, so a tick whose worker died is retried soon. */
  progress?: () => void;
  /** How periods close and how long their drafts wait (default: production's). */
  periods?: PeriodSettings;
}

export async function meterTick(db: Knex, windowEnd: Date, o: MeterOptions): Promise<MeterReport> {
  const progress = o.progress ?? (() => undefined);
  const periods = o.periods ?? DEFAULT_PERIODS;
  const { periods: periodsRolled } = await closePeriods(db, { ...periods, at: windowEnd, progress });
  const capsApplied = await applyPendingCaps(db, windowEnd);
  const batch = o.batch ?? BATCH;
  let entries = 0;
  for (let taken = batch; taken === batch;) {
    const done = await meterRunning(db, windowEnd, batch);
    taken = done.taken;
    entries += done.entries;
    progress();
  }
  // After the window's usage has drawn what it may from grants expiring within it.
  const creditsExpired = await expireCredit(db, windowEnd);
  const softCapsReached = await noteSoftCaps(db);
  const stops = await hardCapStops(db, o.cancelGraceSeconds);
  // After this window's entries: a draft whose grace ended by the window's end has them all.
  const invoicesOpened = await openDueInvoices(db, windowEnd, { progress });
  return {
    windowEnd: windowEnd.toISOString(),
    entries,
    periodsRolled,
    invoicesOpened,
    capsApplied,
    creditsExpired,
    softCapsReached,
    stops,
  };
}

/**
 * An UPDATE of accounts (RETURNING workspace_id and what the entry says) and an audit entry,
 * actor `system`, for each account it changed: together, so each change is recorded exactly once.
 */
async function updateAudited(
  db: Knex,
  sql: string,
  bindings: Knex.RawBinding[],
  action: string,
  details: (row: Record<string, string>) => Record<string, unknown>,
): Promise<number> {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw(sql, bindings);
    for (const r of rows) {
      await appendAudit(trx, {
        workspaceId: r.workspace_id,
        actor: SYSTEM,
        action,
        target: { type: 'workspace', id: r.workspace_id },
        details: details(r),
      });
    }
    return rows.length;
  });
}

/** A figure for an audit entry (JSON numbers at this edge only). */
const usd = (v: string | null) => (v === null ? null : Number(v));

/** Caps PATCHed before the window's end take effect now; each change is an audit entry. */
const applyPendingCaps = (db: Knex, windowEnd: Date) =>
  updateAudited(
    db,
    `UPDATE billing_accounts SET
       soft_cap_usd = CASE WHEN jsonb_exists(pending_caps, 'softCapUsd') THEN (pending_caps->>'softCapUsd')::numeric ELSE soft_cap_usd END,
       hard_cap_usd = CASE WHEN jsonb_exists(pending_caps, 'hardCapUsd') THEN (pending_caps->>'hardCapUsd')::numeric ELSE hard_cap_usd END,
       pending_caps = NULL, pending_requested_at = NULL, updated_at = now()
     WHERE pending_caps IS NOT NULL AND pending_requested_at <= ?
     RETURNING workspace_id, soft_cap_usd::text, hard_cap_usd::text`,
    [windowEnd],
    'billing.limits_applied',
    (r) => ({ softCapUsd: usd(r.soft_cap_usd), hardCapUsd: usd(r.hard_cap_usd) }),
  );

/** A period's spend that reached its soft cap: one audit entry per period, actor `system`. */
const noteSoftCaps = (db: Knex) =>
  updateAudited(
    db,
    `UPDATE billing_accounts SET soft_cap_noted_for = current_period_start
     WHERE soft_cap_usd IS NOT NULL AND spent_usd >= soft_cap_usd
       AND soft_cap_noted_for IS DISTINCT FROM current_period_start
     RETURNING workspace_id, round(spent_usd, 6)::text AS spent, soft_cap_usd::text AS cap, current_period_start`,
    [],
    'billing.soft_cap_reached',
    (r) => ({
      spentUsd: usd(r.spent),
      softCapUsd: usd(r.cap),
      periodStart: new Date(r.current_period_start).toISOString(),
    }),
  );

/**
 * Workspaces whose credit no longer covers the period's spend plus what their managed jobs have
 * reserved: their newest live managed jobs (reserved or not), as many as it takes for the rest to fit, each
 * running one stopped still counted at what its cancel grace may cost. A job already cancelling
 * counts only that, so asking again (a retried tick) picks the same jobs.
 */
async function hardCapStops(db: Knex, graceSeconds: number): Promise<string[]> {
  const perSecond = `(coalesce((j.resources->>'cpu')::numeric, 1) * p.cpu_second_usd + coalesce((j.resources->>'gpu')::numeric, 0) * p.gpu_second_usd
    + coalesce((j.resources->>'memoryMb')::numeric, 1024) / 1024 * p.gb_second_usd)`;
  const { rows } = await db.raw(
    `WITH over AS (
       SELECT b.workspace_id, b.spent_usd, ${CREDIT_SQL} AS credit
       FROM billing_accounts b JOIN workspaces w ON w.id = b.workspace_id JOIN billing_plans p ON p.id = w.plan
       WHERE p.billed AND ${CREDIT_SQL} IS NOT NULL AND b.spent_usd + b.reserved_usd > ${CREDIT_SQL}
     ), live AS (
       -- Every live managed job, reserved or not (one submitted before its workspace was billed):
       -- what it may still cost is what its reservation has left, else its attempt's worst case.
       SELECT j.workspace_id, j.id AS job_id, j.created_at, j.state,
              coalesce(greatest(r.amount_usd - r.consumed_usd, 0), j.timeout_seconds * ${perSecond}) AS left_usd, ${perSecond} AS per_second
       FROM jobs j JOIN over o ON o.workspace_id = j.workspace_id
       LEFT JOIN billing_reservations r ON r.job_id = j.id
       JOIN workspaces w ON w.id = j.workspace_id JOIN billing_plans p ON p.id = w.plan
       WHERE j.pool = 'managed' AND j.state IN ('QUEUED', 'RUNNING', 'CANCELLING')
     ), held AS (
       SELECT l.workspace_id, l.job_id, l.created_at, l.state = 'CANCELLING' AS stopping, l.left_usd,
              -- A queued job stopped costs nothing more; a running one, at most its grace.
              CASE WHEN l.state = 'QUEUED' THEN 0 ELSE least(l.left_usd, ? * l.per_second) END AS grace_usd
       FROM live l
     ), ranked AS (
       -- Those cancelling first, then oldest first: keeping the first k costs what they have left
       -- plus the grace of every one after them.
       SELECT h.*,
              sum(CASE WHEN h.stopping THEN h.grace_usd ELSE h.left_usd END) OVER w AS kept_usd,
              sum(h.grace_usd) OVER w AS kept_grace_usd,
              sum(h.grace_usd) OVER (PARTITION BY h.workspace_id) AS all_grace_usd
       FROM held h
       WINDOW w AS (PARTITION BY h.workspace_id ORDER BY h.stopping DESC, h.created_at, h.job_id)
     )
     SELECT r.job_id FROM ranked r JOIN over o ON o.workspace_id = r.workspace_id
     WHERE NOT r.stopping AND o.spent_usd + r.kept_usd + (r.all_grace_usd - r.kept_grace_usd) > o.credit
     ORDER BY r.created_at DESC, r.job_id DESC`,
    [graceSeconds],
  );
  return rows.map((row: { job_id: string }) => row.job_id);
}
