import { type Client, ScheduleOverlapPolicy, type ScheduleSpec } from '@temporalio/client';
import type { Logger } from 'pino';
import type { BillingPeriod } from '../config';
import { ensureSchedule } from '../temporal/ensure-schedule';

/** The periods schedule in the Temporal UI (Schedules): one per job task queue. */
export const periodScheduleId = (taskQueue: string) => `billing-periods-${taskQueue}`;

/** When periods close: 00:00 UTC on the 1st of each month, or every `seconds`. */
export function periodScheduleSpec(period: BillingPeriod): ScheduleSpec {
  return period === 'month'
    ? {
        calendars: [
          { dayOfMonth: 1, hour: 0, minute: 0, second: 0, comment: 'billing periods close at 00:00 UTC on the 1st' },
        ],
        timezone: 'UTC',
      }
    : { intervals: [{ every: period.seconds * 1000 }] };
}

/**
 * Makes sure the periods' Temporal Schedule exists, starting the `billingPeriod` workflow on the
 * jobs' task queue when periods end (the meter's tick closes them too, whichever comes first). A
 * run due while another still waits out its grace is buffered, so a manual trigger is never lost;
 * one missed while the cluster was down is caught up for a day. Every worker calls this at start.
 */
export async function ensurePeriodSchedule(
  client: Client,
  o: { taskQueue: string; period: BillingPeriod; log: Logger },
): Promise<void> {
  await ensureSchedule(
    client,
    {
      scheduleId: periodScheduleId(o.taskQueue),
      spec: periodScheduleSpec(o.period),
      policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow: 86_400_000 },
      workflowType: 'billingPeriod',
      taskQueue: o.taskQueue,
      about: 'Compute billing periods (CONTRACT §9): closes ended periods, opens their invoices after the grace',
    },
    o.log,
    { period: o.period },
  );
}
