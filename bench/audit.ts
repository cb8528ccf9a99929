/**
 * `npm run bench:audit`: what the audit log adds to a submit. Submits through the API (in this
 * process, with its worker), in rounds alternating between the service as it is and the same
 * service with the audit insert dropped at the database (a BEFORE INSERT trigger on `audit_log`
 * that returns NULL, for this bench's workspace only): the same code path, the same statements,
 * without the entry's row, index entries and WAL. The trigger's own call stays in the "without"
 * rounds, so the ratio errs on the side of making the audit look dearer.
 *
 * Options: --jobs (per round, default 300), --concurrency (default 8), --rounds (pairs, default 3).
 *
 * Last line: `audit ratio_submit_rate=… ratio_submit_p50=… writes_per_submit=…/…`, with / without.
 */
import type { Knex } from 'knex';
import { apiClient } from './api';
import { postgresCounters } from './postgres-counters';
import { type BenchStack, option, runBench } from './stack';
import { ms, nowMs, runPool, summarize } from './stats';

const say = (line = '') => process.stdout.write(`${line}\n`);

async function dropAuditFor(db: Knex, workspaceId: string, on: boolean): Promise<void> {
  if (on) {
    await db.raw(
      `CREATE OR REPLACE FUNCTION bench_drop_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`,
    );
    await db.raw(
      `CREATE TRIGGER bench_drop_audit BEFORE INSERT ON audit_log FOR EACH ROW WHEN (NEW.workspace_id = '${workspaceId}') EXECUTE FUNCTION bench_drop_audit()`,
    );
  } else {
    await db.raw('DROP TRIGGER IF EXISTS bench_drop_audit ON audit_log');
  }
}

interface Round {
  rate: number;
  p50: number;
  writes: number;
}

runBench(async (stack: BenchStack) => {
  const jobs = option('jobs', 300);
  const concurrency = option('concurrency', 8);
  const rounds = option('rounds', 3);
  const api = apiClient(stack.url);
  const db = stack.db;
  const audited = () =>
    db('audit_log')
      .where({ workspace_id: stack.workspaceId, action: 'job.submit' })
      .count<{ n: string }[]>('* as n')
      .then((r) => Number(r[0].n));

  async function round(withAudit: boolean): Promise<Round> {
    await dropAuditFor(db, stack.workspaceId, !withAudit);
    const entriesBefore = await audited();
    const before = await postgresCounters(db);
    const latencies: number[] = [];
    const wall = await runPool(jobs, concurrency, async () => {
      const t = nowMs();
      await api.submit(stack.userKey, { queue: 'nobody' });
      latencies.push(nowMs() - t);
    });
    await new Promise((r) => setTimeout(r, 1100)); // idle backends flush their counters within a second
    const after = await postgresCounters(db);
    await dropAuditFor(db, stack.workspaceId, false);
    const written = (await audited()) - entriesBefore;
    // The switch must have done what it says, or the comparison means nothing.
    if (written !== (withAudit ? jobs : 0))
      throw new Error(`expected ${withAudit ? jobs : 0} submit entries, found ${written}`);
    return { rate: (jobs / wall) * 1000, p50: summarize(latencies).p50, writes: (after.writes - before.writes) / jobs };
  }

  // A warm-up round, not counted: the first workflows, prepared statements and JIT.
  await round(true);
  const withRounds: Round[] = [];
  const withoutRounds: Round[] = [];
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so a drift over the run falls on both.
    for (const withAudit of r % 2 === 0 ? [true, false] : [false, true]) {
      const got = await round(withAudit);
      (withAudit ? withRounds : withoutRounds).push(got);
      say(
        `  round ${r + 1} ${withAudit ? 'with audit   ' : 'without audit'}: ${got.rate.toFixed(0)} submits/s, p50 ${ms(got.p50)} ms, ${got.writes.toFixed(1)} row writes per submit`,
      );
    }
  }
  const mean = (rs: Round[], k: keyof Round) => rs.reduce((s, x) => s + x[k], 0) / rs.length;
  const rateRatio = mean(withRounds, 'rate') / mean(withoutRounds, 'rate');
  const p50Ratio = mean(withRounds, 'p50') / mean(withoutRounds, 'p50');
  say(
    `submit with the audit entry: ${mean(withRounds, 'rate').toFixed(0)}/s, p50 ${ms(mean(withRounds, 'p50'))} ms; without: ${mean(withoutRounds, 'rate').toFixed(0)}/s, p50 ${ms(mean(withoutRounds, 'p50'))} ms`,
  );
  return `audit ratio_submit_rate=${rateRatio.toFixed(2)} ratio_submit_p50=${p50Ratio.toFixed(2)} writes_per_submit=${mean(withRounds, 'writes').toFixed(1)}/${mean(withoutRounds, 'writes').toFixed(1)}`;
});
