import type { Command } from 'commander';
import type { Quotas } from '../../auth/api-keys';
import { loadCliConfig } from '../../config/cli';
import { CliError, callApi } from '../api-client';
import { positiveInt } from '../options';
import { loadSession, requireSession } from '../session';
import { dim, printJson, printTable, status } from '../terminal';

interface KeyRecord {
  id: string;
  prefix: string;
  name: string;
  kind: string;
  quotas: Quotas | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** The quota options `keys create` and `admin keys create` share (`kinds`: what --kind takes, for its help). */
export function quotaOptions(cmd: Command, kinds = 'user or agent'): Command {
  return cmd
    .option('--kind <kind>', kinds, 'user')
    .option(
      '--max-jobs-per-hour <n>',
      'quota: jobs submitted with the key (or handed to its nodes) per hour',
      positiveInt,
    )
    .option('--max-concurrent-jobs <n>', 'quota: unfinished jobs at once', positiveInt)
    .option('--allowed-job-types <types>', 'quota: comma-separated job types');
}

export interface KeyOptions {
  name: string;
  kind: string;
  maxJobsPerHour?: number;
  maxConcurrentJobs?: number;
  allowedJobTypes?: string;
}

/** The body of a key create, from the shared options; a bad --kind is refused here. */
export function keyBody(opts: KeyOptions): { name: string; kind: 'user' | 'agent'; quotas?: Quotas } {
  if (opts.kind !== 'user' && opts.kind !== 'agent') throw new CliError('--kind must be user or agent');
  const quotas: Quotas = {
    ...(opts.maxJobsPerHour && { maxJobsPerHour: opts.maxJobsPerHour }),
    ...(opts.maxConcurrentJobs && { maxConcurrentJobs: opts.maxConcurrentJobs }),
    ...(opts.allowedJobTypes && {
      allowedJobTypes: opts.allowedJobTypes
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    }),
  };
  return { name: opts.name, kind: opts.kind, ...(Object.keys(quotas).length && { quotas }) };
}

const quotaText = (q: Quotas | null) =>
  !q
    ? '-'
    : [
        q.maxJobsPerHour && `${q.maxJobsPerHour}/h`,
        q.maxConcurrentJobs && `${q.maxConcurrentJobs} at once`,
        q.allowedJobTypes?.join('|'),
      ]
        .filter(Boolean)
        .join(', ');

export function registerKeysCommands(program: Command): void {
  const keys = program.command('keys').description('Manage API keys');

  quotaOptions(
    keys
      .command('create')
      .description(
        'Create an API key through the API (needs `compute login`), printed alone on stdout (shown only this once)',
      )
      .requiredOption('--name <name>', 'a name to recognize the key by'),
  ).action(async (opts: KeyOptions) => {
    const body = keyBody(opts);
    const session = await loadSession(loadCliConfig().configDir);
    if (!session)
      throw new CliError(
        'not logged in: run `compute login` first (an operator with database access mints with `compute admin keys create`)',
      );
    const made = await callApi<KeyRecord & { key: string }>(session, '/compute/api-keys/create', body);
    status(dim(`created ${made.id} for ${session.email} in ${session.workspaceId}`));
    process.stdout.write(`${made.key}\n`);
  });

  keys
    .command('list')
    .description('Your keys: prefix, name, kind, quotas, last use; never the secret')
    .option('--json', 'print JSON instead of a table')
    .action(async (opts: { json?: boolean }) => {
      const session = await requireSession();
      const all: KeyRecord[] = [];
      let cursor: string | null = null;
      do {
        const page: { keys: KeyRecord[]; nextCursor: string | null } = await callApi(
          session,
          '/compute/api-keys/list',
          { limit: 200, ...(cursor && { cursor }) },
        );
        all.push(...page.keys);
        cursor = page.nextCursor;
      } while (cursor);
      if (opts.json) return printJson(all);
      printTable(
        ['ID', 'PREFIX', 'NAME', 'KIND', 'QUOTAS', 'CREATED', 'LAST USED', 'REVOKED'],
        all.map((k) => [
          k.id,
          k.prefix,
          k.name,
          k.kind,
          quotaText(k.quotas),
          k.createdAt,
          k.lastUsedAt ?? '-',
          k.revokedAt ?? '-',
        ]),
      );
    });

  keys
    .command('revoke')
    .description('Revoke a key by ID; it stops working at once')
    .argument('<id>', 'the key ID (key_…), as `compute keys list` shows it')
    .action(async (id: string) => {
      const session = await requireSession();
      const out = await callApi<KeyRecord>(session, '/compute/api-keys/revoke', { id });
      status(`revoked ${out.id} (${out.prefix}, ${out.name}) at ${out.revokedAt}`);
    });
}
