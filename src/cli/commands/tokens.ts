import { type Command, Option } from 'commander';
import { ROLES, type Role } from '../../auth/roles';
import { sessionInActiveWorkspace } from '../active-workspace';
import { positiveInt } from '../options';
import { callV0, listAllV0 } from '../v0-client';
import { dim, printJson, printTable, status } from '../terminal';
import type { TokenRecord } from '../records';

/** `compute tokens …`: personal access tokens (`cpat_…`) for /v0, in the active workspace. */
export function registerTokensCommands(program: Command): void {
  const tokens = program
    .command('tokens')
    .description('Personal access tokens (cpat_…) for headless use of /v0, in the active workspace');

  tokens
    .command('create')
    .description('Issue a token (admin or owner), printed alone on stdout (shown only this once)')
    .requiredOption('--name <name>', 'a name to recognize the token by')
    .addOption(new Option('--role <role>', 'the role it acts with, at most yours (default: member)').choices(ROLES))
    .option('--expires-in-days <n>', 'it stops working after this many days (default: never)', positiveInt)
    .action(async (opts: { name: string; role?: Role; expiresInDays?: number }) => {
      const session = await sessionInActiveWorkspace();
      const made = await callV0<TokenRecord & { token: string }>(session, 'POST', '/tokens', {
        name: opts.name,
        role: opts.role,
        expiresInDays: opts.expiresInDays,
      });
      status(
        dim(
          `created ${made.id} (${made.role}) in ${made.workspaceId}${made.expiresAt ? `, expires ${made.expiresAt}` : ''}`,
        ),
      );
      process.stdout.write(`${made.token}\n`);
    });

  tokens
    .command('list')
    .description("The workspace's tokens, newest first; never the secret")
    .option('--json', 'print JSON instead of a table')
    .action(async (opts: { json?: boolean }) => {
      const all = await listAllV0<TokenRecord>(await sessionInActiveWorkspace(), '/tokens');
      if (opts.json) return printJson(all);
      printTable(
        ['ID', 'NAME', 'ROLE', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED'],
        all.map((t) => [
          t.id,
          t.name,
          t.role,
          t.createdAt,
          t.expiresAt ?? '-',
          t.lastUsedAt ?? '-',
          t.revokedAt ?? '-',
        ]),
      );
    });

  tokens
    .command('revoke')
    .description('Revoke a token by ID (admin); every API instance refuses it from then on')
    .argument('<id>', 'the token ID, as `compute tokens list` shows it')
    .action(async (id: string) => {
      await callV0(await sessionInActiveWorkspace(), 'DELETE', `/tokens/${encodeURIComponent(id)}`);
      status(`revoked ${id}`);
    });
}
