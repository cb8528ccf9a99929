import { type Command, InvalidArgumentError } from 'commander';
import type { Knex } from 'knex';
import { loadBillingSettings } from '../../config';
import { type Invoice, readInvoices } from '../../billing/invoice-reads';
import { openDueInvoices } from '../../billing/invoices';
import { compareUsd, parseUsdAmount, trimDecimal } from '../../billing/money';
import { closePeriods, periodSettingsOf } from '../../billing/periods';
import { PLAN_IDS, type PlanId, isPlanId } from '../../billing/plans';
import { readSubscription, setBilling } from '../../billing/subscription';
import { CliError } from '../api-client';
import { onDatabase } from '../operator-database';

// `compute admin billing …`: an operator sets a workspace's plan and prepaid credit in the
// database until checkout does (billing part 2), each change a `billing.set` audit entry; and,
// for support, closes a workspace's period now.

const creditOption = (v: string): string => {
  try {
    return parseUsdAmount(v);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
};

const expiryOption = (v: string): Date => {
  const at = new Date(v);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(v) || Number.isNaN(at.getTime()))
    throw new InvalidArgumentError(`${JSON.stringify(v)} is not an ISO 8601 time like 2027-01-01T00:00:00Z`);
  if (at.getTime() <= Date.now()) throw new InvalidArgumentError(`${v} has passed: a grant expires in the future`);
  return at;
};

const planOption = (v: string): PlanId => {
  if (!isPlanId(v)) throw new InvalidArgumentError(`unknown plan ${JSON.stringify(v)}: one of ${PLAN_IDS.join(', ')}`);
  return v;
};

/** The period closed now, and its invoice when the plan has them (opened at once with `open`). */
async function closeNow(
  db: Knex,
  workspaceId: string,
  open: boolean,
): Promise<{ closed: number; invoice?: Invoice; plan: string }> {
  const subscription = await readSubscription(db, workspaceId);
  if (!subscription) throw new CliError(`workspace ${workspaceId} not found`);
  const at = new Date();
  const { periods } = await closePeriods(db, {
    ...periodSettingsOf(loadBillingSettings()),
    at,
    workspaceId,
    force: true,
  });
  if (open) await openDueInvoices(db, at, { workspaceId, skipGrace: true });
  const [latest] = (await readInvoices(db, workspaceId, { limit: 1 })).invoices;
  return {
    closed: periods,
    plan: subscription.plan,
    invoice: latest?.periodEnd === at.toISOString() ? latest : undefined,
  };
}

/** Adds `billing` to the operator's `admin` command (registered after registerAdminCommands). */
export function registerAdminBillingCommands(program: Command): void {
  const admin = program.commands.find((c) => c.name() === 'admin');
  if (!admin) throw new Error('register the admin commands first');
  const billing = admin
    .command('billing')
    .description("A workspace's plan and prepaid credit, set in the database (audited)");
  billing
    .command('set')
    .description(
      `Set a workspace's plan (${PLAN_IDS.join(', ')}) and/or its prepaid credit in USD; /v0 applies the plan's request budget at once`,
    )
    .requiredOption('--workspace <id>', 'the workspace')
    .option('--plan <plan>', `one of ${PLAN_IDS.join(', ')}`, planOption)
    .option(
      '--credit-usd <amount>',
      'the prepaid credit balance in USD: 0 or more, at most 6 decimals (the difference is granted, or taken back)',
      creditOption,
    )
    .option('--grant-usd <amount>', 'add a grant of prepaid credit in USD, at most 6 decimals', creditOption)
    .option(
      '--grant-expires <time>',
      'when that grant expires (ISO 8601, e.g. 2027-01-01T00:00:00Z): what is left of it then is gone',
      expiryOption,
    )
    .action(
      async (opts: {
        workspace: string;
        plan?: PlanId;
        creditUsd?: string;
        grantUsd?: string;
        grantExpires?: Date;
      }) => {
        if (opts.plan === undefined && opts.creditUsd === undefined && opts.grantUsd === undefined)
          throw new CliError('nothing to set: give --plan, --credit-usd or --grant-usd');
        if (opts.grantExpires && opts.grantUsd === undefined)
          throw new CliError('--grant-expires is for a grant: give --grant-usd too');
        if (opts.grantUsd !== undefined && compareUsd(opts.grantUsd, '0') <= 0)
          throw new CliError('--grant-usd must be more than 0');
        const { after } = await onDatabase((db) =>
          setBilling(db, {
            workspaceId: opts.workspace,
            plan: opts.plan,
            creditUsd: opts.creditUsd,
            grant: opts.grantUsd === undefined ? undefined : { amountUsd: opts.grantUsd, expiresAt: opts.grantExpires },
            actor: { type: 'system', id: 'operator' },
          }).catch((err: unknown) => {
            if ((err as { code?: string }).code === 'resource.not_found')
              throw new CliError(`workspace ${opts.workspace} not found`);
            throw err;
          }),
        );
        process.stdout.write(
          `${after.workspaceId} is on the ${after.plan} plan with ${after.creditUsd} USD of prepaid credit\n`,
        );
      },
    );
  billing
    .command('close-period')
    .description(
      "Close a workspace's billing period now (support): its invoice is a draft until the grace (a meter tick) has passed, then opens",
    )
    .requiredOption('--workspace <id>', 'the workspace')
    .option(
      '--open',
      'open the invoice at once (usage of the period recorded later goes to the next invoice, as late lines)',
    )
    .action(async (opts: { workspace: string; open?: boolean }) => {
      const { closed, invoice, plan } = await onDatabase((db) => closeNow(db, opts.workspace, opts.open ?? false));
      if (closed === 0)
        throw new CliError(`nothing to close: ${opts.workspace}'s current period has only just started`);
      if (!invoice)
        return void process.stdout.write(`${opts.workspace}'s period is closed; its ${plan} plan has no invoices\n`);
      const when = invoice.status === 'draft' ? `draft, opens at ${invoice.closesAt}` : invoice.status;
      process.stdout.write(`${invoice.id} (${when}) for ${invoice.periodStart} to ${invoice.periodEnd}\n`);
      process.stdout.write(
        `total ${invoice.totalUsd} USD in ${invoice.lines.length} lines (rounding ${trimDecimal(invoice.roundingUsd)} USD)${invoice.status === 'draft' ? ' so far' : ''}\n`,
      );
    });
}
