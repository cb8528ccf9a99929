import { getExternalWorkflowHandle, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { declareVersioning } from './versioning';
import type { MeterActivities } from '../activities/types';
import { stopSignal } from './definitions';
import { ScheduledStartTimeKey } from './search-attributes';

// Each tick is idempotent for its window; a failed step is retried until it holds. It heartbeats
// after each batch, so one whose worker died is retried within the heartbeat timeout.
const { meterWindow } = proxyActivities<MeterActivities>({
  startToCloseTimeout: '5m',
  heartbeatTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
});

// A tick is one activity over PostgreSQL (idempotent for its window) and a few signals, started
// by a schedule on the current build. With Worker Versioning on it moves to the current build at
// its next task rather than holding an old build alive while its activity retries through an
// outage; a change to this function is a patched() one.
declareVersioning('AUTO_UPGRADE', meter);

/**
 * One tick of the meter (CONTRACT §9), started by the meter's schedule: meters the window that
 * ends at the time the tick was due (so a tick run late or twice meters the same window), then
 * stops the managed jobs a lowered hard cap no longer covers. The stop is a signal to each job's
 * run, which cancels it with `failureReason: billing.hard_cap`.
 */
export async function meter(): Promise<{ windowEnd: string; entries: number; stopped: string[] }> {
  const due = workflowInfo().typedSearchAttributes.get(ScheduledStartTimeKey) ?? new Date(Date.now());
  const report = await meterWindow({ windowEnd: due.toISOString() });
  const stopped: string[] = [];
  for (const jobId of report.stops) {
    // A job that ended meanwhile has closed its run: nothing to stop.
    const sent = await getExternalWorkflowHandle(jobId)
      .signal(stopSignal, { reason: 'billing.hard_cap' })
      .then(
        () => true,
        () => false,
      );
    if (sent) stopped.push(jobId);
  }
  return { windowEnd: report.windowEnd, entries: report.entries, stopped };
}
