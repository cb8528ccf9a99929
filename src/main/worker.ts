import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig } from '../config';
import { createLogger } from '../log';
import { startServiceProcess } from '../runtime/service-process';
import { runUntilSignal } from './run-until-signal';

// The Temporal worker alone: runs job workflows and their activities.
async function main() {
  // The SDK's own logs at warn: its info level prints the whole workflow bundle report.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'worker');
  const proc = await startServiceProcess({ config, log, api: false, worker: true });
  log.info({ taskQueue: config.temporal.taskQueue }, 'worker running');
  runUntilSignal(log, proc.stop);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
