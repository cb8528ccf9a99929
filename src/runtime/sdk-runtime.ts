import { type LogLevel, type LogMetadata, Runtime } from '@temporalio/worker';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { Logger } from 'pino';
import { logContext } from '../logging/context';

/**
 * Installs the Temporal SDK's runtime for a worker process: its log lines (workflow logs carry
 * the workflow's ID and type) go through our logger at warn and above, since its info level
 * prints the whole bundle report; and with `metricsPort` it serves its worker metrics (task
 * slots, poll and task latencies, sticky cache) for Prometheus on loopback, which the worker's
 * /metrics includes. Must run before any connection is made.
 */
export function installSdkRuntime(log: Logger, metricsPort: number): void {
  const sdkLog = log.child({ component: 'temporal-sdk' });
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const fn = level === 'ERROR' ? sdkLog.error : level === 'WARN' ? sdkLog.warn : undefined;
    fn?.call(sdkLog, meta ?? {}, message);
  };
  Runtime.install({
    logger: {
      log: write,
      trace: (m, meta) => write('TRACE', m, meta),
      debug: (m, meta) => write('DEBUG', m, meta),
      info: (m, meta) => write('INFO', m, meta),
      warn: (m, meta) => write('WARN', m, meta),
      error: (m, meta) => write('ERROR', m, meta),
    },
    ...(metricsPort > 0 && {
      telemetryOptions: {
        metrics: { prometheus: { bindAddress: `127.0.0.1:${metricsPort}`, useSecondsForDurations: true } },
      },
    }),
  });
}

/**
 * Every log line an activity writes carries its workflow, its job and its own name; each
 * activity's end is logged too (debug when it succeeds, warn when it fails, with the attempt).
 */
export function activityLogging(log: Logger): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      execute: (input, next) => {
        const { workflowExecution: run, activityType, attempt } = ctx.info;
        const jobId = run && /job_[0-9a-z]+/.exec(run.workflowId)?.[0];
        const context = {
          workflowId: run?.workflowId,
          runId: run?.runId,
          ...(jobId && { jobId }),
          activity: activityType,
        };
        return logContext.run(context, async () => {
          const started = Date.now();
          try {
            const out = await next(input);
            log.debug({ ms: Date.now() - started, attempt }, 'activity done');
            return out;
          } catch (err) {
            log.warn({ err: String(err), ms: Date.now() - started, attempt }, 'activity failed');
            throw err;
          }
        });
      },
    },
  });
}
