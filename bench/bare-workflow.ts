import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

// The baseline's workflow: the job workflow's dispatch shape without the job. It waits for an
// `assign` Update, answers it at once and completes. Deterministic code only.

export const bareAssignUpdate = defineUpdate<string, [string]>('assign');

export async function bareJob(): Promise<string> {
  let leaseId: string | undefined;
  setHandler(bareAssignUpdate, (lease: string) => {
    leaseId = lease;
    return lease;
  });
  await condition(() => leaseId !== undefined);
  return leaseId!;
}
