import { loadApiConfig } from '../config';
import { createDb } from '../db/knex';
import { migrateLatest } from '../db/migrate';
import { createLogger } from '../logging/logger';
import { startServiceProcess } from '../runtime/service-process';
import { runUntilSignal } from './run-until-signal';

// The API alone (scale it out beside workers): DATABASE_URL and TEMPORAL_ADDRESS are required.
async function main() {
  const config = loadApiConfig();
  const log = createLogger(config.logLevel, 'api');
  const db = createDb(config.databaseUrl ?? '');
  await migrateLatest(db).finally(() => db.destroy());
  const proc = await startServiceProcess({ config, log, api: true, worker: false });
  log.info({ url: proc.url }, 'api listening');
  runUntilSignal(log, proc.stop);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
