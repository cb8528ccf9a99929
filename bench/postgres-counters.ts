import type { Knex } from 'knex';
import { BARE_DATABASE } from './bare-service';
import { nowMs, sleep } from './stats';

// PostgreSQL's own counters over a phase of a bench: transactions, row writes, rows fetched,
// transaction IDs and WAL fsyncs, read from pg_stat_database and pg_stat_io; and the statements
// it ran most often, from pg_stat_statements.

/**
 * PostgreSQL's own count of transactions, row writes and rows fetched in the database so far
 * (pg_stat_database; stats are flushed when a backend goes idle, so a phase of seconds is
 * counted whole once it has been idle a second), and in the bare service's
 * (bench/bare-service.ts). Everything in them counts: API, worker, and the bench's checker, or
 * the bare service. Cluster-wide beside them: `xids`, the transaction IDs handed
 * out so far (a transaction gets one when it first writes, locks a row or NOTIFYs, and only such
 * a transaction's commit waits for its WAL to be flushed: synchronous_commit is on), and
 * `walFsyncs`, the WAL fsyncs made (pg_stat_io, PostgreSQL 16+; one fsync can serve several
 * commits waiting together). Both are read with the database quiet.
 */
export async function postgresCounters(
  db: Knex,
  /** The databases counted, if not `db`'s own and the bare service's. */
  databases?: string[],
): Promise<{ xacts: number; writes: number; fetched: number; xids: number; walFsyncs: number }> {
  await db.raw('SELECT pg_stat_force_next_flush()').catch(() => undefined);
  const { rows } = await db.raw(
    `SELECT sum(xact_commit + xact_rollback) AS xacts, sum(tup_inserted + tup_updated + tup_deleted) AS writes,
            sum(tup_fetched) AS fetched, pg_snapshot_xmax(pg_current_snapshot())::text AS xids
       FROM pg_stat_database WHERE datname = ANY(coalesce(?::text[], ARRAY[current_database(), ?]))`,
    [databases ?? null, BARE_DATABASE],
  );
  const wal = await db.raw(`SELECT sum(fsyncs) AS fsyncs FROM pg_stat_io WHERE object = 'wal'`).then(
    (r) => Number(r.rows[0].fsyncs ?? NaN),
    () => NaN,
  );
  return {
    xacts: Number(rows[0].xacts),
    writes: Number(rows[0].writes),
    fetched: Number(rows[0].fetched),
    xids: Number(rows[0].xids),
    walFsyncs: wal,
  };
}

export type PostgresPerJob = Awaited<ReturnType<typeof postgresCounters>>;

/**
 * PostgreSQL counts a backend's transactions when it flushes its statistics, which a backend gone
 * idle within a second of its last flush does only up to 10 s later (PGSTAT_IDLE_INTERVAL): a
 * window that must hold a phase's every transaction, and none of the one before, opens and closes
 * after that long.
 */
export const STATS_FLUSH_MS = 10_500;

/**
 * As `postgresCounters`, per job over a phase: `stop(jobs, settleMs)` reports once idle backends
 * had `settleMs` to report (by default the second in which most do), `perJob()` then gives the figures.
 */
export async function watchPostgres(db: Knex, databases?: string[]) {
  const read = () => postgresCounters(db, databases);
  const startedAt = nowMs();
  const before = await read();
  let figures: PostgresPerJob | undefined;
  let endedAt: number | undefined;
  return {
    async stop(jobs: number, settleMs = 1100): Promise<string> {
      await new Promise((r) => setTimeout(r, settleMs));
      const after = await read();
      endedAt = nowMs();
      const per = (k: keyof typeof before) => (after[k] - before[k]) / jobs;
      figures = {
        xacts: per('xacts'),
        writes: per('writes'),
        fetched: per('fetched'),
        xids: per('xids'),
        walFsyncs: per('walFsyncs'),
      };
      const f = (v: number) => v.toFixed(1);
      return (
        `PostgreSQL per job: ${f(figures.xacts)} transactions, ${f(figures.writes)} row writes, ${f(figures.fetched)} rows fetched; ` +
        `${f(figures.xids)} commits that waited for a WAL flush (transaction IDs handed out, cluster-wide), ${f(figures.walFsyncs)} WAL fsyncs`
      );
    },
    perJob(): PostgresPerJob {
      if (!figures) throw new Error('perJob() before stop()');
      return figures;
    },
    /** After `stop`: the ms between the two reads, the wait for idle backends included. */
    windowMs(): number {
      if (endedAt === undefined) throw new Error('windowMs() before stop()');
      return endedAt - startedAt;
    },
  };
}

/**
 * `phase` with PostgreSQL's counters read around it, the window opening and closing once every
 * backend has reported (STATS_FLUSH_MS), so that it holds the phase's every transaction and none
 * of what ran before.
 */
export async function settledWindow(db: Knex, phase: () => Promise<unknown>, databases?: string[]) {
  await sleep(STATS_FLUSH_MS);
  const pg = await watchPostgres(db, databases);
  await phase();
  await pg.stop(1, STATS_FLUSH_MS);
  return pg;
}

/** What PostgreSQL ran most often since the last reset, per second, the bench's own reads left out. */
export async function busiestStatements(db: Knex, seconds: number): Promise<string[]> {
  const { rows } = (await db.raw(
    `SELECT calls, query FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query NOT LIKE '%pg_stat_%'
      ORDER BY calls DESC LIMIT 8`,
  )) as { rows: Array<{ calls: string; query: string }> };
  return rows.map(
    (r) => `${(Number(r.calls) / seconds).toFixed(1).padStart(7)}/s  ${r.query.replace(/\s+/g, ' ').slice(0, 160)}`,
  );
}

/** Where PostgreSQL's write-ahead log is now, and how many bytes it has grown since. */
export const walPosition = async (db: Knex): Promise<string> =>
  ((await db.raw('SELECT pg_current_wal_lsn()::text AS lsn')) as { rows: Array<{ lsn: string }> }).rows[0].lsn;
export const walSince = async (db: Knex, lsn: string): Promise<number> =>
  Number(
    (
      (await db.raw('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn) AS bytes', [lsn])) as {
        rows: Array<{ bytes: string }>;
      }
    ).rows[0].bytes,
  );
