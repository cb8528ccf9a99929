import { loadWorkerConfig } from '../config';
import { createLogger } from '../logging/logger';
import { startServiceProcess } from '../runtime/service-process';
import { installSdkRuntime } from '../runtime/sdk-runtime';
import { runUntilSignal } from './run-until-signal';

// The Temporal worker alone: runs job workflows and their activities.
async function main() {
  const config = loadWorkerConfig();
  const log = createLogger(config.logLevel, 'worker');
  installSdkRuntime(log, config.worker.sdkMetricsPort);
  const proc = await startServiceProcess({
    config,
    log,
    api: false,
    worker: true,
    sdkMetricsPort: config.worker.sdkMetricsPort,
  });
  const { deployment } = config.worker;
  const version = deployment ? `${deployment.deploymentName}:${deployment.buildId}` : 'unversioned';
  log.info({ taskQueue: config.temporal.taskQueue, version, health: proc.workerUrl }, 'worker running');
  runUntilSignal(log, proc.stop);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
