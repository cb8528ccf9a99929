import { type Client, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Logger } from 'pino';
import { ensureSchedule } from '../temporal/ensure-schedule';

/** The meter's schedule in the Temporal UI (Schedules): one per job task queue. */
export const meterScheduleId = (taskQueue: string) => `meter-${taskQueue}`;

/**
 * Makes sure the meter's Temporal Schedule exists and ticks every `tickSeconds`, starting the
 * `meter` workflow on the jobs' task queue. A tick still running when the next is due makes it
 * skip (each tick meters up to its own due time, so nothing is lost); ticks missed while the
 * cluster was down are caught up for a minute. Every worker calls this at start: the first
 * creates it, later ones bring its interval in line with their settings.
 */
export async function ensureMeterSchedule(
  client: Client,
  o: { taskQueue: string; tickSeconds: number; log: Logger },
): Promise<void> {
  await ensureSchedule(
    client,
    {
      scheduleId: meterScheduleId(o.taskQueue),
      spec: { intervals: [{ every: o.tickSeconds * 1000 }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: 60_000 },
      workflowType: 'meter',
      taskQueue: o.taskQueue,
      about: 'Compute usage meter (CONTRACT §9): prices running attempts, applies caps',
    },
    o.log,
    { tickSeconds: o.tickSeconds },
  );
}
