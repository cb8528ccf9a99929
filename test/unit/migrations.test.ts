import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MIGRATION_NAMES } from '../../src/db/migrate';

// Migrations run in name order. One named before a migration already applied somewhere would run
// last on that database but in the middle on a fresh one, so each migration must sort after
// every migration added before it: in the repository's history, then in the working tree.

const ROOT = path.resolve(__dirname, '../..');
const DIR = 'src/db/migrations';

/**
 * The migrations that sort before one added earlier: `added` is each commit's (then the working
 * tree's) new migrations, oldest first.
 */
export function outOfOrder(added: string[][]): string[] {
  const late: string[] = [];
  let newest = '';
  for (const batch of added) {
    for (const name of batch) if (name < newest) late.push(`${name} sorts before ${newest}, added earlier`);
    for (const name of batch) if (name > newest) newest = name;
  }
  return late;
}

/** Each commit's new migrations, oldest commit first; null outside a git checkout. */
function addedByCommit(): string[][] | null {
  try {
    const log = execFileSync('git', ['log', '--reverse', '--diff-filter=A', '--format=@%H', '--name-only', '--', DIR], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    return log
      .split('@')
      .slice(1)
      .map((chunk) =>
        chunk
          .split('\n')
          .slice(1)
          .filter((f) => f.endsWith('.ts'))
          .map((f) => path.basename(f, '.ts')),
      );
  } catch {
    return null;
  }
}

describe('migrations', () => {
  const files = fs
    .readdirSync(path.join(ROOT, DIR))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.basename(f, '.ts'));

  it('are listed once each, in the order they run, and every file is listed', () => {
    assert.deepEqual(
      [...MIGRATION_NAMES].sort(),
      [...files].sort(),
      'src/db/migrate.ts lists exactly the files in src/db/migrations',
    );
    assert.deepEqual([...MIGRATION_NAMES], [...new Set(MIGRATION_NAMES)].sort(), 'in name order, each once');
  });

  it('refuses a migration that sorts before one added earlier', () => {
    assert.deepEqual(outOfOrder([['20261122000000_a'], ['20261205000000_b'], ['20261128000000_c']]), [
      '20261128000000_c sorts before 20261205000000_b, added earlier',
    ]);
    assert.deepEqual(outOfOrder([['20261122000000_a', '20261123000000_b'], ['20261124000000_c']]), []);
  });

  it('each sorts after every migration added before it, in the history and in the working tree', function () {
    const history = addedByCommit();
    if (!history) this.skip();
    const committed = new Set(history!.flat());
    const uncommitted = files.filter((f) => !committed.has(f)).sort();
    assert.deepEqual(
      outOfOrder([...history!, uncommitted]),
      [],
      'name it after the newest: npm run migration:new <name>',
    );
  });
});
