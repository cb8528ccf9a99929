import fs from 'node:fs';
import path from 'node:path';
import { MIGRATION_NAMES } from '../src/db/migrate';

// `npm run migration:new <snake_case_name>`: a migration file named after both the clock and the
// newest migration (one second after it when the clock is behind), and its line in
// src/db/migrate.ts, so it always runs last (test/unit/migrations.test.ts checks it).

const ROOT = path.resolve(__dirname, '..');
const what = process.argv[2] ?? '';
if (!/^[a-z][a-z0-9_]*$/.test(what)) {
  process.stderr.write(
    `usage: npm run migration:new <snake_case_name>, e.g. add_job_tags (got ${JSON.stringify(what)})\n`,
  );
  process.exit(2);
}

const stamp = (d: Date) => d.toISOString().replace(/\D/g, '').slice(0, 14);
const newest = [...MIGRATION_NAMES].sort().at(-1)!.slice(0, 14);
const now = stamp(new Date());
const after = (s: string) =>
  stamp(
    new Date(
      Date.UTC(
        +s.slice(0, 4),
        +s.slice(4, 6) - 1,
        +s.slice(6, 8),
        +s.slice(8, 10),
        +s.slice(10, 12),
        +s.slice(12, 14) + 1,
      ),
    ),
  );
const name = `${now > newest ? now : after(newest)}_${what}`;

const file = path.join(ROOT, 'src/db/migrations', `${name}.ts`);
fs.writeFileSync(
  file,
  `import type { Knex } from 'knex';

// What this migration changes, and why.

export async function up(knex: Knex): Promise<void> {
  void knex;
}

export async function down(knex: Knex): Promise<void> {
  void knex;
}
`,
);
const registry = path.join(ROOT, 'src/db/migrate.ts');
const source = fs.readFileSync(registry, 'utf8');
const last = `  '${[...MIGRATION_NAMES].at(-1)}',\n`;
if (!source.includes(last)) throw new Error(`cannot find ${last.trim()} in src/db/migrate.ts`);
fs.writeFileSync(registry, source.replace(last, `${last}  '${name}',\n`));
process.stdout.write(`wrote src/db/migrations/${name}.ts and listed it in src/db/migrate.ts\n`);
