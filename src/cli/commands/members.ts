import { type Command, Option } from 'commander';
import { ROLES, type Role } from '../../auth/roles';
import { CliError } from '../api-client';
import { activeWorkspaceOf } from '../active-workspace';
import { type Session, requireSession } from '../session';
import { callV0, listAllV0 } from '../v0-client';
import { printJson, printTable, status } from '../terminal';
import type { MemberRecord } from '../records';

interface Where {
  session: Session;
  workspaceId: string;
  /** `/workspaces/{id}/members`: the path names the workspace, so no header is needed. */
  base: string;
}

/** --workspace, else the one `compute workspaces use` chose, else the session's own. */
async function whereFrom(opts: { workspace?: string }): Promise<Where> {
  const session = await requireSession();
  const workspaceId = opts.workspace ?? (await activeWorkspaceOf(session)) ?? session.workspaceId;
  return { session, workspaceId, base: `/workspaces/${encodeURIComponent(workspaceId)}/members` };
}

/** A user ID as given, or the ID of the member with that e-mail address. */
async function userIdOf(where: Where, who: string): Promise<string> {
  if (!who.includes('@')) return who;
  const found = (await listAllV0<MemberRecord>(where.session, where.base)).find(
    (m) => m.email.toLowerCase() === who.toLowerCase(),
  );
  if (!found) throw new CliError(`${who} is not a member of ${where.workspaceId}`);
  return found.userId;
}

const roleOption = () =>
  new Option('--role <role>', 'their role in the workspace').choices(ROLES).makeOptionMandatory();
const inWorkspace = (cmd: Command) =>
  cmd.option('--workspace <id>', 'the workspace (default: the active one, else your own)');

/** `compute members …`: who belongs to a workspace, and with which role. */
export function registerMembersCommands(program: Command): void {
  const members = program
    .command('members')
    .description("A workspace's members and their roles (--workspace, else the active workspace)");

  inWorkspace(members.command('add'))
    .description(
      'Add someone by e-mail (admin; an admin or owner needs an owner); an address without an account gets one',
    )
    .argument('<email>', 'their e-mail address')
    .addOption(roleOption())
    .action(async (email: string, opts: { role: Role; workspace?: string }) => {
      const where = await whereFrom(opts);
      const m = await callV0<MemberRecord>(where.session, 'POST', where.base, { email, role: opts.role });
      status(`added ${m.email} (${m.userId}) to ${where.workspaceId} as ${m.role}`);
    });

  inWorkspace(members.command('list'))
    .description('The members and their roles')
    .option('--json', 'print JSON instead of a table')
    .action(async (opts: { json?: boolean; workspace?: string }) => {
      const where = await whereFrom(opts);
      const all = await listAllV0<MemberRecord>(where.session, where.base);
      if (opts.json) return printJson(all);
      printTable(
        ['USER ID', 'EMAIL', 'ROLE', 'ADDED'],
        all.map((m) => [m.userId, m.email, m.role, m.addedAt]),
      );
    });

  inWorkspace(members.command('update'))
    .description("Change a member's role (admin; to or from admin or owner needs an owner)")
    .argument('<member>', 'their user ID or e-mail address')
    .addOption(roleOption())
    .action(async (who: string, opts: { role: Role; workspace?: string }) => {
      const where = await whereFrom(opts);
      const userId = await userIdOf(where, who);
      const m = await callV0<MemberRecord>(where.session, 'PATCH', `${where.base}/${encodeURIComponent(userId)}`, {
        role: opts.role,
      });
      status(`${m.email} (${m.userId}) is now ${m.role} in ${where.workspaceId}`);
    });

  inWorkspace(members.command('remove'))
    .description(
      'Remove a member (admin; an admin or owner needs an owner); their keys, tokens and the agents registered through them there are revoked',
    )
    .argument('<member>', 'their user ID or e-mail address')
    .action(async (who: string, opts: { workspace?: string }) => {
      const where = await whereFrom(opts);
      const userId = await userIdOf(where, who);
      const gone = await callV0<{ revoked?: { keys: string[]; tokens: string[]; agents: string[] } }>(
        where.session,
        'DELETE',
        `${where.base}/${encodeURIComponent(userId)}`,
      );
      const r = gone?.revoked;
      const revoked = r
        ? `; revoked ${r.keys.length} key(s), ${r.tokens.length} token(s), ${r.agents.length} agent(s)`
        : '';
      status(`removed ${who} from ${where.workspaceId}${revoked}`);
    });
}
