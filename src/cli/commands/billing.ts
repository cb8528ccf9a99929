import { type Command, InvalidArgumentError } from 'commander';
import { parseUsdAmount } from '../../billing/money';
import { sessionInActiveWorkspace } from '../active-workspace';
import { callApi } from '../api-client';
import { resolveTarget, targetOptions } from '../credentials';
import { dim, printJson, printTable, status } from '../terminal';
import { callV0, listAllV0 } from '../v0-client';
import { registerStripeCommands } from './billing-stripe';

// `compute billing …`: the plans and the workspace's subscription (through /api, any member), its
// usage, caps and invoices (through /v0, in the active workspace; changing caps is an admin's).

interface PlanRecord {
  id: string;
  name: string;
  prices: { cpuSecondUsd: number; gpuSecondUsd: number; gbSecondUsd: number };
  requestsPerSecond: number | null;
  burst: number | null;
  invoices: boolean;
}

interface SubscriptionRecord {
  plan: string;
  status: string;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  creditUsd: number;
}

/** A price as written, never in exponent form (2e-7 → 0.0000002). */
const price = (n: number) => (n === 0 ? '0' : n.toFixed(12).replace(/0+$/, '').replace(/\.$/, ''));

interface Figures {
  cpuSeconds: number;
  gpuSeconds: number;
  gbSeconds: number;
  estimateUsd: number;
}
interface UsageRecord extends Figures {
  windowStart: string;
  windowEnd: string;
  managed: Figures;
  self: Figures;
}
interface LimitsRecord {
  softCapUsd: number | null;
  hardCapUsd: number | null;
  pending: { softCapUsd: number | null; hardCapUsd: number | null; requestedAt: string } | null;
}

/** `--hard 80` or `--hard none`: a cap in USD (at most 6 decimals), or `none` to remove it. */
function capArgument(value: string): number | 'none' {
  if (value === 'none') return 'none';
  try {
    return Number(parseUsdAmount(value));
  } catch (err) {
    throw new InvalidArgumentError(`${(err as Error).message}, or none`);
  }
}

const cap = (v: number | null) => (v === null ? 'none' : `${v} USD`);

interface InvoiceRecord {
  id: string;
  periodStart: string;
  periodEnd: string;
  status: string;
  totalUsd: number;
  creditUsd: number;
  roundingUsd: number;
  lines: Array<{
    kind: 'usage' | 'credit';
    jobId: string | null;
    attempt: number | null;
    late: boolean;
    cpuSeconds: number;
    gpuSeconds: number;
    gbSeconds: number;
    amountUsd: number;
  }>;
}

function registerUsageAndLimits(billing: Command): void {
  billing
    .command('usage')
    .description(
      'The active workspace’s usage in CPU-, GPU- and GB-seconds with its USD estimate, managed and self apart (default: the current period)',
    )
    .option('--from <time>', 'window start, ISO 8601 (default: the period’s start)')
    .option('--to <time>', 'window end, ISO 8601 (default: the period’s end)')
    .option('--json', 'print JSON')
    .action(async (opts: { from?: string; to?: string; json?: boolean }) => {
      const query = new URLSearchParams({
        ...(opts.from && { windowStart: opts.from }),
        ...(opts.to && { windowEnd: opts.to }),
      }).toString();
      const u = await callV0<UsageRecord>(
        await sessionInActiveWorkspace(),
        'GET',
        `/billing/usage${query ? `?${query}` : ''}`,
      );
      if (opts.json) return void printJson(u);
      const row = (label: string, f: Figures) => [
        label,
        String(f.cpuSeconds),
        String(f.gpuSeconds),
        String(f.gbSeconds),
        f.estimateUsd.toFixed(6),
      ];
      printTable(
        ['POOL', 'CPU-SECONDS', 'GPU-SECONDS', 'GB-SECONDS', 'USD'],
        [row('managed', u.managed), row('self', u.self), row('total', u)],
      );
      status(dim(`from ${u.windowStart} to ${u.windowEnd}`));
    });

  billing
    .command('limits')
    .description(
      'The soft and hard caps; with --soft or --hard (admin), ask for new ones, which take effect at the next meter tick',
    )
    .option('--soft <usd>', 'soft cap: crossing it is an audit entry once per period (none: remove it)', capArgument)
    .option(
      '--hard <usd>',
      'hard cap: managed jobs past it are refused, and newer ones stopped (none: remove it)',
      capArgument,
    )
    .option('--json', 'print JSON')
    .action(async (opts: { soft?: number | 'none'; hard?: number | 'none'; json?: boolean }) => {
      const session = await sessionInActiveWorkspace();
      const asCap = (v: number | 'none') => (v === 'none' ? null : v);
      const change = {
        ...(opts.soft !== undefined && { softCapUsd: asCap(opts.soft) }),
        ...(opts.hard !== undefined && { hardCapUsd: asCap(opts.hard) }),
      };
      const asking = Object.keys(change).length > 0;
      const limits = asking
        ? await callV0<LimitsRecord>(session, 'PATCH', '/billing/limits', change)
        : await callV0<LimitsRecord>(session, 'GET', '/billing/limits');
      if (opts.json) return void printJson(limits);
      process.stdout.write(`soft cap   ${cap(limits.softCapUsd)}\nhard cap   ${cap(limits.hardCapUsd)}\n`);
      if (limits.pending) {
        process.stdout.write(
          `pending    soft ${cap(limits.pending.softCapUsd)}, hard ${cap(limits.pending.hardCapUsd)}\n`,
        );
        status(dim(`asked at ${limits.pending.requestedAt}; the next meter tick applies it`));
      }
    });
}

function registerInvoices(billing: Command): void {
  billing
    .command('invoices')
    .description('The active workspace’s invoices, newest first (payg and team): period, status, total and lines')
    .option('--json', 'print JSON: every invoice with its lines')
    .action(async (opts: { json?: boolean }) => {
      const invoices = await listAllV0<InvoiceRecord>(await sessionInActiveWorkspace(), '/billing/invoices');
      if (opts.json) return void printJson(invoices);
      printTable(
        ['INVOICE', 'PERIOD', 'STATUS', 'CREDIT USD', 'TOTAL USD', 'LINES'],
        invoices.map((i) => [
          i.id,
          `${i.periodStart} to ${i.periodEnd}`,
          i.status,
          String(i.creditUsd),
          i.totalUsd.toFixed(2),
          String(i.lines.length),
        ]),
      );
      if (invoices.length === 0) status(dim('no invoices yet: the first comes when the current period closes'));
    });
}

export function registerBillingCommands(program: Command): void {
  const billing = program
    .command('billing')
    .description('Plans, prices, your workspace’s subscription, usage, caps and invoices');
  registerUsageAndLimits(billing);
  registerInvoices(billing);
  registerStripeCommands(billing);

  targetOptions(billing.command('plans'))
    .description('Every plan: USD per CPU-, GPU- and GB-second, /v0 request budget, invoicing')
    .option('--json', 'print JSON')
    .action(async (opts: { api?: string; key?: string; json?: boolean }) => {
      const { plans } = await callApi<{ plans: PlanRecord[] }>(
        await resolveTarget(opts),
        '/compute/billing/plans/list',
        {},
      );
      if (opts.json) return void printJson(plans);
      printTable(
        ['PLAN', 'NAME', 'CPU-SECOND', 'GPU-SECOND', 'GB-SECOND', 'V0 BUDGET', 'INVOICES'],
        plans.map((p) => [
          p.id,
          p.name,
          price(p.prices.cpuSecondUsd),
          price(p.prices.gpuSecondUsd),
          price(p.prices.gbSecondUsd),
          p.requestsPerSecond === null ? '-' : `${p.requestsPerSecond}/s, burst ${p.burst}`,
          p.invoices ? 'yes' : 'no',
        ]),
      );
    });

  targetOptions(billing.command('subscription'))
    .description('Your workspace’s plan, status, current period and prepaid credit')
    .option('--json', 'print JSON')
    .action(async (opts: { api?: string; key?: string; json?: boolean }) => {
      const s = await callApi<SubscriptionRecord>(await resolveTarget(opts), '/compute/billing/subscription', {});
      if (opts.json) return void printJson(s);
      process.stdout.write(
        `plan     ${s.plan} (${s.status})\nperiod   ${s.currentPeriodStart} to ${s.currentPeriodEnd}\ncredit   ${s.creditUsd} USD\n`,
      );
    });
}
