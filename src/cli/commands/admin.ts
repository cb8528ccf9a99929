import type { Command } from 'commander';
import pino from 'pino';
import { createApiKey } from '../../auth/api-keys';
import { ensureDefaultWorkspace } from '../../auth/workspaces';
import { databaseUrlOf, loadConfig } from '../../config';
import { createDb } from '../../db/knex';
import { isDatabaseUnavailable } from '../../shared/dependency-errors';
import { CliError } from '../api-client';
import { type KeyOptions, keyBody, quotaOptions } from './keys';

// Operator commands: they reach into the database (DATABASE_URL, else the `npm run dev` one)
// instead of talking to the API, so they live apart from the commands any user may run.

/** Mints a key straight into the database, as `npm run dev` does for its printed key. */
async function createInDatabase(body: ReturnType<typeof keyBody>, workspace: string | undefined): Promise<string> {
  const url = databaseUrlOf(loadConfig());
  // Silent: stdout carries the key alone, and an outage gets one plain message below.
  const db = createDb(url, { max: 1, log: pino({ level: 'silent' }) });
  try {
    const workspaceId = workspace ?? (await ensureDefaultWorkspace(db));
    if (!(await db('workspaces').where({ id: workspaceId }).first())) throw new CliError(`workspace ${workspaceId} not found`);
    return (await createApiKey(db, { workspaceId, ...body })).key;
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw new CliError(`cannot reach the database at ${url.replace(/:[^:@/]*@/, ':***@')}: is \`npm run dev\` running?`);
    throw err;
  } finally {
    await db.destroy();
  }
}

export function registerAdminCommands(program: Command): void {
  const admin = program.command('admin').description('Operator commands that work on the database directly (DATABASE_URL)');
  const keys = admin.command('keys').description('API keys, minted in the database');
  quotaOptions(
    keys
      .command('create')
      .description('Mint an API key in the database, printed alone on stdout (shown only this once)')
      .requiredOption('--name <name>', 'a name to recognize the key by')
      .option('--workspace <id>', 'the workspace (default: the default workspace, made if missing)'),
  ).action(async (opts: KeyOptions & { workspace?: string }) => {
    const body = keyBody(opts);
    process.stdout.write(`${await createInDatabase(body, opts.workspace)}\n`);
  });
}
