import { type Client, ScheduleAlreadyRunning, type ScheduleOptions } from '@temporalio/client';
import type { Logger } from 'pino';

/**
 * Makes sure a Temporal Schedule that starts `workflowType` on `taskQueue` exists: the first
 * worker to start creates it, later ones bring its spec, action and policies in line with their
 * settings (a redeploy that changes an interval takes effect without a manual edit in the UI).
 */
export async function ensureSchedule(
  client: Client,
  o: Pick<ScheduleOptions, 'scheduleId' | 'spec' | 'policies'> & {
    workflowType: string;
    taskQueue: string;
    about: string;
  },
  log: Logger,
  fields: Record<string, unknown> = {},
): Promise<void> {
  const { scheduleId, spec, policies } = o;
  const action = {
    type: 'startWorkflow' as const,
    workflowType: o.workflowType,
    workflowId: scheduleId,
    taskQueue: o.taskQueue,
    args: [],
  };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies, memo: { about: o.about } });
    log.info({ scheduleId, ...fields }, 'schedule created');
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action, policies }));
  }
}
