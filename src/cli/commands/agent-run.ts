// What `compute agent` runs, loaded only when it runs: the agent, its sandbox, logger and tracing
// stay out of every other command's start-up.
import fs from 'node:fs';
import { loadAgentConfig } from '../../config/cli';
import { RegionSchema } from '../../jobs/schemas';
import { createLogger } from '../../logging/logger';
import { Agent, type Resources } from '../../reference-agent/agent';
import { detectCapacity } from '../../reference-agent/capacity';
import { SandboxUnavailable } from '../../reference-agent/sandbox';
import { startTracing } from '../../telemetry/tracing';
import { CliError } from '../api-client';

export interface AgentFlags {
  api?: string;
  key?: string;
  keyFile?: string;
  label: Record<string, string>;
  concurrency: number;
  name: string;
  dir?: string;
  region?: string;
  sandbox?: boolean;
  sandboxUidBase: number;
  cpus?: number;
  memoryMb?: number;
  gpus?: number;
}

/** What the agent registers it has: asked for by a flag, or always on a managed-pool agent. */
function capacityOf(opts: AgentFlags, managed: boolean): Resources | undefined {
  if (!managed && opts.cpus === undefined && opts.memoryMb === undefined && opts.gpus === undefined) return undefined;
  const detected = detectCapacity();
  const capacity = {
    cpu: opts.cpus ?? detected.cpu,
    memoryMb: opts.memoryMb ?? detected.memoryMb,
    gpu: opts.gpus ?? detected.gpu,
  };
  if (!(capacity.cpu > 0 && capacity.cpu <= 1024))
    throw new CliError('--cpus is a number of CPUs above 0, at most 1024');
  if (!Number.isInteger(capacity.memoryMb) || capacity.memoryMb < 1)
    throw new CliError('--memory-mb is a whole number of MiB above 0');
  if (!Number.isInteger(capacity.gpu) || capacity.gpu < 0 || capacity.gpu > 64)
    throw new CliError('--gpus is a whole number from 0 to 64');
  return capacity;
}

function readKeyFile(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`--key-file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const key = text.split('\n')[0]!.trim();
  if (!key) throw new CliError(`--key-file ${file} is empty`);
  return key;
}

/** `compute agent`'s action: validate the flags, start the agent, drain it on the first signal. */
export async function runAgent(opts: AgentFlags): Promise<void> {
  const config = loadAgentConfig();
  const key = opts.keyFile !== undefined ? readKeyFile(opts.keyFile) : (opts.key ?? config.key ?? config.apiKey);
  if (!key) throw new CliError('an agent key is needed: COMPUTE_AGENT_KEY, --key-file, --key or COMPUTE_API_KEY');
  const managed = key.startsWith('ckm');
  if (managed && opts.key !== undefined) {
    throw new CliError(
      'a managed-pool key never goes on the command line, where ps shows it to every user of the host: give it in COMPUTE_AGENT_KEY or --key-file',
    );
  }
  const capacity = capacityOf(opts, managed);
  if (!Number.isInteger(opts.sandboxUidBase) || opts.sandboxUidBase < 1000 || opts.sandboxUidBase > 2 ** 31 - 300) {
    throw new CliError('--sandbox-uid-base is a user ID from 1000 on, with room for every slot');
  }
  if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1 || opts.concurrency > 256)
    throw new CliError('--concurrency is 1..256');
  if (opts.region !== undefined && !RegionSchema.safeParse(opts.region).success)
    throw new CliError('--region is 1 to 32 lower-case letters, digits and -');
  const log = createLogger(config.logLevel, 'agent');
  // Each attempt's run becomes a span of its job's trace when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const traces = startTracing(config.tracing, 'compute-agent');
  const agent = new Agent({
    apiUrl: opts.api ?? config.apiUrl,
    key,
    name: opts.name,
    labels: opts.label,
    ...(opts.region !== undefined && { region: opts.region }),
    concurrency: opts.concurrency,
    ...((managed || opts.sandbox) && { sandbox: { uidBase: opts.sandboxUidBase } }),
    ...(capacity && { capacity }),
    dir: opts.dir ?? config.dir,
    killGraceMs: config.killGraceMs,
    log,
    onFatal: () => {
      process.exitCode = 1;
      void agent.killJobs().then(() => process.exit(1));
    },
  });
  await agent.start().catch((err: unknown) => {
    throw err instanceof SandboxUnavailable
      ? new CliError(`${managed ? 'a managed-pool agent runs every job in a sandbox, and ' : ''}${err.message}`)
      : err;
  });
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
  await traces?.shutdown();
  log.info('agent stopped');
  process.exit(0); // pooled HTTP sockets would otherwise hold the process a few seconds
}
