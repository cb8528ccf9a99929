import os from 'node:os';
import type { Command } from 'commander';
import { labelPair } from '../options';
import type { AgentFlags } from './agent-run';

/** Far above the users and groups a distribution hands out, so no sandbox user is a real one. */
const DEFAULT_SANDBOX_UID_BASE = 900_000;

/** `compute agent`: run jobs on this machine until stopped. */
export function registerAgentCommand(program: Command): void {
  program
    .command('agent')
    .description('Run jobs on this machine: register, heartbeat, long-poll, run, report')
    .option('--api <url>', 'API base URL (default: COMPUTE_API_URL or http://127.0.0.1:3000)')
    .option(
      '--key <key>',
      'agent API key (default: COMPUTE_AGENT_KEY, then COMPUTE_API_KEY); on the command line every user of the host sees it, so prefer those or --key-file',
    )
    .option('--key-file <path>', 'read the agent API key from this file (the first line)')
    .option('--label <key=value>', 'a label jobs can select on (repeatable)', labelPair, {})
    .option('--concurrency <n>', 'jobs run at once', (v) => Number(v), 1)
    .option('--name <name>', 'node name', os.hostname())
    .option(
      '--dir <path>',
      'where the node identity and job folders live (default: COMPUTE_AGENT_DIR or ~/.compute-agent)',
    )
    .option(
      '--region <region>',
      'with a managed-pool key (`compute admin keys create --kind managed`): the region whose managed jobs of every workspace this agent runs ' +
        '(default local); refused with any other key, whose agents run their workspace’s own jobs',
    )
    .option(
      '--cpus <n>',
      'CPUs for jobs (default: all; with a managed-pool key or any of these three, jobs are handed out only as they fit)',
      Number,
    )
    .option('--memory-mb <n>', 'memory for jobs in MiB (default: all of it)', Number)
    .option('--gpus <n>', 'GPUs for jobs, handed out by index (default: as nvidia-smi lists them)', Number)
    .option(
      '--sandbox',
      'run each job in a sandbox as a user of its own (needs root and bubblewrap); always on with a managed-pool key',
    )
    .option(
      '--sandbox-uid-base <uid>',
      'the sandbox user of job slot n is this user ID + n (give each agent on a host its own range)',
      (v) => Number(v),
      DEFAULT_SANDBOX_UID_BASE,
    )
    // The agent, its sandbox, logger and tracing load when it runs: other commands start without them.
    .action((opts: AgentFlags) => (require('./agent-run') as typeof import('./agent-run')).runAgent(opts));
}
