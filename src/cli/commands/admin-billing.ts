import { type Command, InvalidArgumentError } from 'commander';
import { parseUsdAmount } from '../../billing/money';
import { PLAN_IDS, type PlanId, isPlanId } from '../../billing/plans';
import { setBilling } from '../../billing/subscription';
import { CliError } from '../api-client';
import { onDatabase } from '../operator-database';

// `compute admin billing …`: an operator sets a workspace's plan and prepaid credit in the
// database until checkout does (billing part 2). Each change is a `billing.set` audit entry.

const creditOption = (v: string): string => {
  try {
    return parseUsdAmount(v);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
};

const planOption = (v: string): PlanId => {
  if (!isPlanId(v)) throw new InvalidArgumentError(`unknown plan ${JSON.stringify(v)}: one of ${PLAN_IDS.join(', ')}`);
  return v;
};

/** Adds `billing` to the operator's `admin` command (registered after registerAdminCommands). */
export function registerAdminBillingCommands(program: Command): void {
  const admin = program.commands.find((c) => c.name() === 'admin');
  if (!admin) throw new Error('register the admin commands first');
  const billing = admin.command('billing').description("A workspace's plan and prepaid credit, set in the database (audited)");
  billing
    .command('set')
    .description(`Set a workspace's plan (${PLAN_IDS.join(', ')}) and/or its prepaid credit in USD; /v0 applies the plan's request budget at once`)
    .requiredOption('--workspace <id>', 'the workspace')
    .option('--plan <plan>', `one of ${PLAN_IDS.join(', ')}`, planOption)
    .option('--credit-usd <amount>', 'prepaid credit in USD: 0 or more, at most 6 decimals (replaces the current credit)', creditOption)
    .action(async (opts: { workspace: string; plan?: PlanId; creditUsd?: string }) => {
      if (opts.plan === undefined && opts.creditUsd === undefined) throw new CliError('nothing to set: give --plan, --credit-usd or both');
      const { after } = await onDatabase((db) =>
        setBilling(db, {
          workspaceId: opts.workspace,
          plan: opts.plan,
          creditUsd: opts.creditUsd,
          actor: { type: 'system', id: 'operator' },
        }).catch((err: unknown) => {
          if ((err as { code?: string }).code === 'resource.not_found') throw new CliError(`workspace ${opts.workspace} not found`);
          throw err;
        }),
      );
      process.stdout.write(`${after.workspaceId} is on the ${after.plan} plan with ${after.creditUsd} USD of prepaid credit\n`);
    });
}
