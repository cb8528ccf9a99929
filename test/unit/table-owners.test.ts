import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

// Each table has one domain that writes it (STYLE 9): jobs and their attempts only src/jobs (the
// seam where audit, the outbox and metering attach), log lines and their state only src/logs.
// Others read and join freely. A scan of the source: a knex chain on the table that writes, or
// SQL that writes it, outside its owner fails this test.

const ROOT = path.resolve(__dirname, '../..');
const OWNERS: Record<string, string> = {
  jobs: 'src/jobs/',
  job_attempts: 'src/jobs/',
  // The managed pool's turns are stamped by the hand-out itself (reservations.ts).
  managed_pool_turns: 'src/jobs/',
  // The usage ledger and credit reservations: billing's, whoever calls it (the seam, the meter).
  usage_ledger: 'src/billing/',
  billing_reservations: 'src/billing/',
  // Prepaid credit: grants, draws, returns, expiries and adjustments, and each grant's remainder.
  credit_ledger: 'src/billing/',
  credit_grants: 'src/billing/',
  // Invoices, their lines and the entries they claimed: closing and opening periods is billing's.
  invoices: 'src/billing/',
  invoice_lines: 'src/billing/',
  invoice_entries: 'src/billing/',
  job_logs: 'src/logs/',
  job_log_state: 'src/logs/',
};
/** Schema changes are the migrations' by nature. */
const EXEMPT = ['src/db/migrations/'];

const WRITE_METHODS = /\.(insert|update|delete|del|upsert|increment|decrement|merge|truncate)\s*\(/;

/** Each write to `table` in `source`: a knex chain started on the table, or SQL naming it as a write's target. */
export function writesTo(source: string, table: string): string[] {
  const found: string[] = [];
  // knex: db('jobs'), trx('jobs as j'), db.table('jobs'), .from('jobs') ... up to the end of the statement.
  const chain = new RegExp(`(?:\\(|\\.(?:table|from|into)\\()\\s*['"\`]${table}(?:\\s+as\\s+\\w+)?['"\`]\\s*\\)`, 'g');
  for (const m of source.matchAll(chain)) {
    const rest = source.slice(m.index, source.indexOf(';', m.index) === -1 ? undefined : source.indexOf(';', m.index));
    const write = WRITE_METHODS.exec(rest);
    if (write)
      found.push(
        rest
          .slice(0, write.index + write[0].length)
          .replace(/\s+/g, ' ')
          .slice(0, 160),
      );
  }
  // SQL in strings: UPDATE jobs, INSERT INTO jobs, DELETE FROM jobs, MERGE INTO jobs, TRUNCATE jobs.
  const sql = new RegExp(
    `\\b(UPDATE|INSERT\\s+INTO|DELETE\\s+FROM|MERGE\\s+INTO|TRUNCATE(?:\\s+TABLE)?)\\s+(?:ONLY\\s+)?"?${table}"?(?![\\w.])`,
    'gi',
  );
  for (const m of source.matchAll(sql)) found.push(m[0]);
  return found;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.(ts|js)$/.test(e.name) ? [rel] : [];
  });
}

describe('each table has one writer', () => {
  it('jobs and job_attempts are written only in src/jobs, log lines and their state only in src/logs', () => {
    const files = ['src', 'activities', 'workflows']
      .flatMap(sourceFiles)
      .filter((f) => !EXEMPT.some((e) => f.startsWith(e)));
    assert.ok(files.length > 50, 'the scan reads the tree');
    const offences: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      for (const [table, owner] of Object.entries(OWNERS)) {
        if (file.startsWith(owner)) continue;
        for (const w of writesTo(text, table)) offences.push(`${file}: ${w}`);
      }
    }
    assert.deepEqual(offences, [], 'ask the owning domain instead');
  });

  it('finds a planted write in every form, and lets reads and other tables pass', () => {
    const planted = [
      "await db('jobs').where({ id }).update({ state: 'QUEUED' });",
      "await trx('job_attempts as a').where('a.lease_id', lease)\n  .update({ ended_at: trx.fn.now() });",
      "await db('jobs').insert(row).onConflict('id').merge();",
      "await db.table('jobs').where({ id }).del();",
      "await db.raw('UPDATE jobs SET artifacts = ? WHERE id = ?', [a, id]);",
      'await trx.raw(`insert into job_attempts (lease_id) values (?)`, [l]);',
      'const q = `WITH x AS (DELETE FROM jobs WHERE id = ? RETURNING id) SELECT 1`;',
    ];
    for (const source of planted) {
      const table = /job_attempts/.test(source) ? 'job_attempts' : 'jobs';
      assert.equal(writesTo(source, table).length, 1, source);
    }
    const harmless = [
      "const job = await db('jobs').where({ id }).first('id');",
      "await db('jobs as j').join('job_attempts as a', 'a.job_id', 'j.id').select('j.id');",
      "await trx('jobs').whereIn('id', ids).forShare().select('id');",
      "await db('jobs_archive').where({ id }).update({ x: 1 });",
      "await db.raw('UPDATE jobs_archive SET x = 1');",
      "await db('agents').where({ id }).update({ drain: true }); await db('jobs').where({ id }).first();",
    ];
    for (const source of harmless)
      assert.deepEqual([...writesTo(source, 'jobs'), ...writesTo(source, 'job_attempts')], [], source);
  });
});
