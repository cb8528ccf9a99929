import type { Knex } from 'knex';
import type { ObjectStore } from '../artifacts/object-store';
import { pendingMigrations } from '../db/migrate';

export interface ReadinessReport {
  ready: boolean;
  /** Each dependency: `ok`, or what is wrong with it. */
  checks: Record<string, string>;
}

export interface ReadinessDeps {
  db: Knex;
  /** Answers when Temporal's frontend serves our namespace. */
  temporal: () => Promise<unknown>;
  /** Absent when no S3 endpoint is configured (then artifacts answer 503, and readiness says so). */
  store?: ObjectStore;
  /** Further checks of this process (the worker's own state). */
  extra?: Record<string, () => Promise<void>>;
  timeoutMs?: number;
}

/**
 * What `/readyz` answers: PostgreSQL reachable with every migration of this build applied,
 * Temporal serving the namespace, object storage answering with its bucket. Checks run side by
 * side, each within a deadline; one answer serves every caller for a second, so a flood of
 * probes costs the dependencies one check a second.
 */
export function createReadiness(deps: ReadinessDeps): () => Promise<ReadinessReport> {
  const timeoutMs = deps.timeoutMs ?? 2000;
  const checks: Record<string, () => Promise<unknown>> = {
    postgres: () => deps.db.raw('select 1'),
    migrations: async () => {
      const pending = await pendingMigrations(deps.db);
      if (pending.length) throw new Error(`${pending.length} pending: ${pending.join(', ')}`);
    },
    temporal: deps.temporal,
    ...(deps.store && { objectStorage: () => deps.store!.ping() }),
    ...deps.extra,
  };
  let last: { at: number; report: Promise<ReadinessReport> } | undefined;
  return () => {
    if (last && Date.now() - last.at < 1000) return last.report;
    const report = run(checks, timeoutMs, Boolean(deps.store));
    last = { at: Date.now(), report };
    return report;
  };
}

async function run(
  checks: Record<string, () => Promise<unknown>>,
  timeoutMs: number,
  hasStore: boolean,
): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const outcomes = await Promise.all(
    names.map((name) =>
      withDeadline(checks[name](), timeoutMs).then(
        () => 'ok',
        (err: unknown) => describe(err),
      ),
    ),
  );
  const report: ReadinessReport = {
    ready: outcomes.every((o) => o === 'ok'),
    checks: Object.fromEntries(names.map((n, i) => [n, outcomes[i]])),
  };
  if (!hasStore) report.checks.objectStorage = 'not configured (artifact routes answer 503)';
  return report;
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

const describe = (err: unknown) =>
  (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 200) || 'failed';
