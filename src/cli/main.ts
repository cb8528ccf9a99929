import { Command } from 'commander';
import pino from 'pino';
import { databaseUrlOf, loadConfig } from '../config';
import { createApiKey } from '../auth/api-keys';
import { ensureDefaultWorkspace } from '../auth/workspaces';
import { createDb } from '../db/knex';
import { isDatabaseUnavailable } from '../shared/dependency-errors';

const program = new Command('compute').description('Compute job service command-line tool');

const keys = program.command('keys').description('Manage API keys');
keys
  .command('create')
  .description('Create an API key (printed alone on stdout, shown only once)')
  .requiredOption('--name <name>', 'a name to recognize the key by')
  .option('--workspace <id>', 'workspace ID (default: the default workspace)')
  .option('--kind <kind>', 'user or agent', 'user')
  .action(async (opts: { name: string; workspace?: string; kind: string }) => {
    if (opts.kind !== 'user' && opts.kind !== 'agent') throw new Error('--kind must be user or agent');
    const config = loadConfig();
    const url = databaseUrlOf(config);
    // Silent: stdout carries the key alone, and an outage gets one plain message below.
    const db = createDb(url, { max: 1, log: pino({ level: 'silent' }) });
    try {
      const workspaceId = opts.workspace ?? (await ensureDefaultWorkspace(db));
      if (!(await db('workspaces').where({ id: workspaceId }).first())) throw new Error(`workspace ${workspaceId} not found`);
      const { key } = await createApiKey(db, { workspaceId, name: opts.name, kind: opts.kind });
      process.stdout.write(`${key}\n`);
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw new Error(`cannot reach the database at ${url.replace(/:[^:@/]*@/, ':***@')}: is \`npm run dev\` running?`);
      throw err;
    } finally {
      await db.destroy();
    }
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
