import os from 'node:os';
import type { Command } from 'commander';
import { Agent } from '../../reference-agent/agent';
import { loadConfig } from '../../config';
import { createLogger } from '../../logging/logger';
import { RegionSchema } from '../../jobs/schemas';
import { labelPair } from '../options';
import { CliError } from '../api-client';


/** `compute agent`: run jobs on this machine until stopped. */
export function registerAgentCommand(program: Command): void {
  program
    .command('agent')
    .description('Run jobs on this machine: register, heartbeat, long-poll, run, report')
    .option('--api <url>', 'API base URL (default: COMPUTE_API_URL or http://127.0.0.1:3000)')
    .option('--key <key>', 'agent API key (default: COMPUTE_AGENT_KEY, then COMPUTE_API_KEY)')
    .option('--label <key=value>', 'a label jobs can select on (repeatable)', labelPair, {})
    .option('--concurrency <n>', 'jobs run at once', (v) => Number(v), 1)
    .option('--name <name>', 'node name', os.hostname())
    .option('--dir <path>', 'where the node identity and job folders live (default: COMPUTE_AGENT_DIR or ~/.compute-agent)')
    .option(
      '--region <region>',
      'with a managed-pool key (`compute admin keys create --kind managed`): the region whose managed jobs of every workspace this agent runs ' +
        '(default local); refused with any other key, whose agents run their workspace’s own jobs',
    )
    .action(async (opts: { api?: string; key?: string; label: Record<string, string>; concurrency: number; name: string; dir?: string; region?: string }) => {
      const config = loadConfig();
      const key = opts.key ?? config.agent.key ?? config.cli.apiKey;
      if (!key) throw new CliError('an agent key is needed: --key, COMPUTE_AGENT_KEY or COMPUTE_API_KEY');
      if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1 || opts.concurrency > 256) throw new CliError('--concurrency is 1..256');
      if (opts.region !== undefined && !RegionSchema.safeParse(opts.region).success) throw new CliError('--region is 1 to 32 lower-case letters, digits and -');
      const log = createLogger(config.logLevel, 'agent');
      const agent = new Agent({
        apiUrl: opts.api ?? config.cli.apiUrl,
        key,
        name: opts.name,
        labels: opts.label,
        ...(opts.region !== undefined && { region: opts.region }),
        concurrency: opts.concurrency,
        dir: opts.dir ?? config.agent.dir,
        killGraceMs: config.agent.killGraceMs,
        log,
        onFatal: () => {
          process.exitCode = 1;
          void agent.killJobs().then(() => process.exit(1));
        },
      });
      await agent.start();
      // First SIGTERM/SIGINT: drain (finish running jobs, take no new ones). Second: stop the jobs.
      let signals = 0;
      const stopped = new Promise<void>((resolve) => {
        const onSignal = (signal: NodeJS.Signals) => {
          if (++signals === 1) {
            log.info({ signal }, 'draining; send the signal again to stop running jobs');
            void agent.drain().then(resolve);
          } else {
            log.warn({ signal }, 'stopping running jobs');
            void agent.killJobs();
          }
        };
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
      });
      await stopped;
      log.info('agent stopped');
      process.exit(0); // pooled HTTP sockets would otherwise hold the process a few seconds

    });
}
