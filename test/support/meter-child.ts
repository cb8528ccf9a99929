// A meter tick's batches in a process of its own, slowed down, for a test that kills it with
// SIGKILL midway: batches of 10 attempts, each committed on its own, for the window ending at argv[2].
import { meterRunning } from '../../src/billing/ledger';
import { loadConfig } from '../../src/config';
import { createDb } from '../../src/db/knex';

const db = createDb(loadConfig().databaseUrl!);
void (async () => {
  while ((await meterRunning(db, new Date(process.argv[2]), 10)) > 0) await new Promise((r) => setTimeout(r, 100));
  await db.destroy();
})();
