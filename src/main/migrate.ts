import { loadDatabaseUrl } from '../config';
import { createDb } from '../db/knex';
import { migrateLatest } from '../db/migrate';

// `npm run migrate`: apply pending migrations to DATABASE_URL (or the dev database).
async function main() {
  const db = createDb(loadDatabaseUrl());
  try {
    await migrateLatest(db);
    console.log('migrations applied');
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
