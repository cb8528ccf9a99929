import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

// Whether an agent is lost is decided in one place, src/agents/liveness.ts, on the database's
// clock. Anywhere else, an age measured from a heartbeat (on any clock) is a second opinion.

const ROOT = path.resolve(__dirname, '../..');
const HOME = 'src/agents/liveness.ts';

/** Each place in `source` that measures how long ago a heartbeat was (SQL or JavaScript). */
export function heartbeatAges(source: string): string[] {
  const patterns = [
    // SQL: now() - x.last_heartbeat_at, or last_heartbeat_at compared with a moment.
    /now\(\)\s*-\s*(?:\w+\.|\$\{[^}]+\}\.)?last_heartbeat_at/gi,
    /(?:\w+\.)?last_heartbeat_at['"]?\s*,?\s*['"]?\s*(?:<|>|<=|>=)/gi,
    /coalesce\((?:\w+\.)?last_heartbeat_at[^)]*\)['"]?\s*\)?,?\s*['"]?(?:<|>)/gi,
    // JavaScript: Date.now() - lastHeartbeat… or a Date made from last_heartbeat_at, compared.
    /Date\.now\(\)\s*-\s*[\w.]*(?:lastHeartbeat|last_heartbeat)/g,
    /[\w.]*(?:lastHeartbeat|last_heartbeat_at)[\w.()]*\.getTime\(\)/g,
  ];
  return patterns.flatMap((p) => [...source.matchAll(p)].map((m) => m[0]));
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.ts$/.test(e.name) ? [rel] : [];
  });
}

describe('agent liveness in one place', () => {
  it('only src/agents/liveness.ts measures how long ago an agent or attempt was heard of', () => {
    const files = ['src', 'activities', 'workflows']
      .flatMap(sourceFiles)
      .filter((f) => f !== HOME && !f.startsWith('src/db/migrations/'));
    const offences = files.flatMap((f) =>
      heartbeatAges(fs.readFileSync(path.join(ROOT, f), 'utf8')).map((w) => `${f}: ${w}`),
    );
    assert.deepEqual(offences, [], 'ask src/agents/liveness.ts');
    assert.ok(heartbeatAges(fs.readFileSync(path.join(ROOT, HOME), 'utf8')).length > 0, 'and liveness.ts does');
  });

  it('finds a planted second opinion on either clock', () => {
    const planted = [
      "db.raw('extract(epoch from (now() - a.last_heartbeat_at)) * 1000 as age_ms')",
      "if (Date.now() - lastHeartbeat.getTime() > lostAfterMs) state = 'OFFLINE';",
      "q.where('g.last_heartbeat_at', '<', db.raw('now() - interval \\'90 seconds\\''))",
      "q.where(db.raw('coalesce(a.last_heartbeat_at, a.assigned_at)'), '<', cutoff)",
    ];
    for (const source of planted) assert.ok(heartbeatAges(source).length > 0, source);
    const harmless = [
      "await trx('agents').update({ last_heartbeat_at: trx.fn.now() });",
      'lastHeartbeatAt: lastHeartbeat.toISOString(),',
    ];
    for (const source of harmless) assert.deepEqual(heartbeatAges(source), [], source);
  });
});
