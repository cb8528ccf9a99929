import type { Command } from 'commander';
import { CliError } from '../api-client';
import { activeWorkspaceOf, clearActiveWorkspace, setActiveWorkspace } from '../active-workspace';
import { requireSession } from '../session';
import { callV0, listAllV0 } from '../v0-client';
import { dim, green, printJson, printTable, status } from '../terminal';
import type { WorkspaceRecord } from '../records';

const path = (id: string) => `/workspaces/${encodeURIComponent(id)}`;

// Create and list act for the caller, not in a workspace: they send no X-Compute-WorkspaceRecord, so
// they still work when the chosen workspace has gone from under the caller.

/** `compute workspaces …`: the caller's workspaces, and which one later commands act in. */
export function registerWorkspacesCommands(program: Command): void {
  const workspaces = program.command('workspaces').description('Your workspaces, and the one later commands act in');

  workspaces
    .command('create')
    .description('Create a workspace you own; its ID is printed alone on stdout')
    .argument('<name>', 'its name')
    .option('--region <region>', 'its default region (default: local)')
    .action(async (name: string, opts: { region?: string }) => {
      const made = await callV0<WorkspaceRecord>(await requireSession(), 'POST', '/workspaces', {
        name,
        defaultRegion: opts.region,
      });
      status(
        dim(
          `created ${made.id} (${made.name}, region ${made.defaultRegion}, plan ${made.plan}); \`compute workspaces use ${made.id}\` to act in it`,
        ),
      );
      process.stdout.write(`${made.id}\n`);
    });

  workspaces
    .command('list')
    .description('Your workspaces with your role in each; * marks the one commands act in')
    .option('--json', 'print JSON instead of a table (with "active": true on the one commands act in)')
    .action(async (opts: { json?: boolean }) => {
      const session = await requireSession();
      const active = (await activeWorkspaceOf(session)) ?? session.workspaceId;
      const all = (await listAllV0<WorkspaceRecord>(session, '/workspaces')).map((w) => ({
        ...w,
        active: w.id === active,
      }));
      if (opts.json) return printJson(all);
      printTable(
        ['ACTIVE', 'ID', 'NAME', 'ROLE', 'REGION', 'PLAN', 'CREATED'],
        all.map((w) => [w.active ? '*' : '', w.id, w.name, w.role, w.defaultRegion, w.plan, w.createdAt]),
      );
    });

  workspaces
    .command('update')
    .description('Rename a workspace or change its default region (admin)')
    .argument('<id>', 'the workspace ID')
    .option('--name <name>', 'its new name')
    .option('--region <region>', 'its new default region')
    .action(async (id: string, opts: { name?: string; region?: string }) => {
      if (opts.name === undefined && opts.region === undefined)
        throw new CliError('nothing to change: give --name, --region or both');
      const w = await callV0<WorkspaceRecord>(await requireSession(), 'PATCH', path(id), {
        name: opts.name,
        defaultRegion: opts.region,
      });
      status(`updated ${w.id}: name ${w.name}, region ${w.defaultRegion}`);
    });

  workspaces
    .command('use')
    .description(
      'Act in this workspace from now on (/v0 calls send X-Compute-WorkspaceRecord); --clear goes back to your own',
    )
    .argument('[id]', 'a workspace ID from `compute workspaces list`')
    .option('--clear', 'act in your own workspace again')
    .action(async (id: string | undefined, opts: { clear?: boolean }) => {
      const session = await requireSession();
      if (opts.clear || id === session.workspaceId) {
        await clearActiveWorkspace();
        return status(`acting in your own workspace ${session.workspaceId}`);
      }
      if (!id) throw new CliError('give a workspace ID (see `compute workspaces list`), or --clear for your own');
      // Checked before it is kept, so a typo fails here rather than on every later command.
      const w = await callV0<WorkspaceRecord>(session, 'GET', path(id)).catch((err: Error) => {
        throw new CliError(`cannot use ${id}: ${err.message}; \`compute workspaces list\` shows yours`);
      });
      await setActiveWorkspace(session, w.id);
      status(
        `${green('✔')} acting in ${w.id} (${w.name}, you are ${w.role}) from now on; \`compute workspaces use --clear\` goes back to your own`,
      );
    });
}
