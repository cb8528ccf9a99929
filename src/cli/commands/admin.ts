import type { Command } from 'commander';
import { createApiKey } from '../../auth/api-keys';
import { ensureDefaultWorkspace, ensureOperatorWorkspace } from '../../workspaces/rows';
import { CliError } from '../api-client';
import { onDatabase } from '../operator-database';
import { type KeyOptions, keyBody, quotaOptions } from './keys';

// Operator commands: they reach into the database (DATABASE_URL, else the `npm run dev` one)
// instead of talking to the API, so they live apart from the commands any user may run.

/** Mints a key straight into the database, as `npm run dev` does for its printed key. */
const createInDatabase = (body: ReturnType<typeof keyBody>, workspace: string | undefined): Promise<string> =>
  onDatabase(async (db) => {
    const workspaceId = workspace ?? (await ensureDefaultWorkspace(db));
    const row = await db('workspaces').where({ id: workspaceId }).first('is_operator');
    if (!row) throw new CliError(`workspace ${workspaceId} not found`);
    if (row.is_operator)
      throw new CliError(
        `${workspaceId} is the managed pool's own workspace: it holds managed-pool keys only (--kind managed)`,
      );
    return (await createApiKey(db, { workspaceId, ...body })).key;
  });

/**
 * A managed-pool key (CONTRACT §9), in the operator's workspace: it registers managed-pool
 * agents, which take `pool: managed` jobs of every workspace in their region, and does nothing else.
 */
function createManagedKey(opts: KeyOptions & { workspace?: string }): Promise<string> {
  if (opts.workspace) throw new CliError('a managed-pool key belongs to no customer workspace: leave out --workspace');
  if (opts.maxJobsPerHour || opts.maxConcurrentJobs || opts.allowedJobTypes)
    throw new CliError('a managed-pool key takes no quotas');
  return onDatabase(
    async (db) =>
      (await createApiKey(db, { workspaceId: await ensureOperatorWorkspace(db), name: opts.name, kind: 'managed' }))
        .key,
  );
}

const PLANS = ['hobby', 'payg', 'team', 'enterprise'] as const;
const positive = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${name} must be a whole number of at least 1`);
  return n;
};

export function registerAdminCommands(program: Command): void {
  const admin = program
    .command('admin')
    .description('Operator commands that work on the database directly (DATABASE_URL)');
  const keys = admin.command('keys').description('API keys, minted in the database');
  quotaOptions(
    keys
      .command('create')
      .description(
        'Mint an API key in the database, printed alone on stdout (shown only this once). ' +
          '--kind managed mints a managed-pool key: `compute agent --key <it> --region R` then runs managed jobs of every workspace in region R',
      )
      .requiredOption('--name <name>', 'a name to recognize the key by')
      .option(
        '--workspace <id>',
        'the workspace (default: the default workspace, made if missing; none for --kind managed)',
      ),
    'user, agent, or managed (the managed pool: registers managed-pool agents only)',
  ).action(async (opts: KeyOptions & { workspace?: string }) => {
    const key =
      opts.kind === 'managed' ? await createManagedKey(opts) : await createInDatabase(keyBody(opts), opts.workspace);
    process.stdout.write(`${key}\n`);
  });

  admin
    .command('set-plan <workspace> <plan>')
    .description(
      `Set a workspace's plan (${PLANS.join(', ')}) until billing does: /v0 applies its request budget on every API instance at once`,
    )
    .option('--rps <n>', 'enterprise only: requests per second (default: unlimited)', positive('--rps'))
    .option('--burst <n>', 'enterprise only: requests in any one second (default: twice --rps)', positive('--burst'))
    .action(async (workspace: string, plan: string, opts: { rps?: number; burst?: number }) => {
      if (!(PLANS as readonly string[]).includes(plan))
        throw new CliError(`unknown plan ${JSON.stringify(plan)}: one of ${PLANS.join(', ')}`);
      if (plan !== 'enterprise' && (opts.rps || opts.burst))
        throw new CliError('--rps and --burst are for the enterprise plan only');
      const changed = await onDatabase((db) =>
        db('workspaces')
          .where({ id: workspace })
          .update({ plan, requests_per_second: opts.rps ?? null, burst: opts.burst ?? null }),
      );
      if (!changed) throw new CliError(`workspace ${workspace} not found`);
      process.stdout.write(`${workspace} is on the ${plan} plan\n`);
    });
}
