import type { Command } from 'commander';
import { wholeNumber } from '../options';
import { sessionInActiveWorkspace } from '../active-workspace';
import { callV0, listAllV0 } from '../v0-client';
import { printJson, printTable, status } from '../terminal';
import type { AgentRecord } from '../records';

const labelsText = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',') || '-';

function printAgent(a: AgentRecord): void {
  const rows: Array<[string, string]> = [
    ['id', a.id],
    ['name', a.name],
    ['state', a.state],
    ['labels', labelsText(a.labels)],
    ['version', a.version ?? '-'],
    ['last heartbeat', a.lastHeartbeatAt],
    ['current jobs', a.currentJobs.join(' ') || '-'],
    ['drain deadline', a.drainDeadlineAt ?? '-'],
    ['created', a.createdAt],
  ];
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(15)} ${v}\n`);
}

/** `compute agents …`: the agents of the active workspace, on /v0 with the login session. */
export function registerAgentsCommands(program: Command): void {
  const agents = program.command('agents').description('Agents registered in the active workspace');

  agents
    .command('list')
    .description('Every agent, newest first, with its state and the jobs it runs')
    .option('--json', 'print JSON instead of a table')
    .action(async (opts: { json?: boolean }) => {
      const all = await listAllV0<AgentRecord>(await sessionInActiveWorkspace(), '/agents');
      if (opts.json) return printJson(all);
      printTable(
        ['ID', 'NAME', 'STATE', 'LABELS', 'LAST HEARTBEAT', 'JOBS'],
        all.map((a) => [a.id, a.name, a.state, labelsText(a.labels), a.lastHeartbeatAt, String(a.currentJobs.length)]),
      );
    });

  agents
    .command('get')
    .description('One agent')
    .argument('<id>', 'the agent ID, as `compute agents list` shows it')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      const agent = await callV0<AgentRecord>(
        await sessionInActiveWorkspace(),
        'GET',
        `/agents/${encodeURIComponent(id)}`,
      );
      if (opts.json) printJson(agent);
      else printAgent(agent);
    });

  agents
    .command('drain')
    .description(
      'Give the agent no new jobs (admin); with --deadline, requeue what it still runs after that many seconds',
    )
    .argument('<id>')
    .option('--deadline <seconds>', 'requeue its unfinished jobs after this many seconds', wholeNumber)
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { deadline?: number; json?: boolean }) => {
      const agent = await callV0<AgentRecord>(
        await sessionInActiveWorkspace(),
        'POST',
        `/agents/${encodeURIComponent(id)}:drain`,
        {
          ...(opts.deadline !== undefined && { deadlineSeconds: opts.deadline }),
        },
      );
      if (opts.json) return printJson(agent);
      status(`${agent.id} ${agent.state}${agent.drainDeadlineAt ? `, deadline ${agent.drainDeadlineAt}` : ''}`);
    });

  agents
    .command('remove')
    .description('Deregister the agent (admin): its key stops at once and the jobs it runs are requeued')
    .argument('<id>')
    .action(async (id: string) => {
      await callV0(await sessionInActiveWorkspace(), 'DELETE', `/agents/${encodeURIComponent(id)}`);
      status(`removed ${id}`);
    });
}
