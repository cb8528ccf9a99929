import { condition, defineUpdate, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { AgentIdKey, JobStateKey } from '../workflows/search-attributes';

// The baselines' workflows: the job workflow's dispatch without the job. Deterministic code only.

/** The minimal loop: waits for one `assign` Update, answers it at once and completes. */
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

/**
 * The job protocol's own shape, with nothing of ours: started with the four search attributes
 * (by the client), an `assign` Update that upserts state and agent, a `result` Update that
 * upserts the terminal state and completes the run.
 */
export const bareProtocolAssign = defineUpdate<string, [{ leaseId: string; agentId: string }]>('assign');
export const bareProtocolResult = defineUpdate<string, [{ leaseId: string; exitCode: number }]>('result');

export async function bareProtocolJob(): Promise<string> {
  let state = 'QUEUED';
  let lease: string | undefined;
  setHandler(bareProtocolAssign, ({ leaseId, agentId }) => {
    if (state !== 'QUEUED') throw new Error(`not queued: ${state}`);
    state = 'RUNNING';
    lease = leaseId;
    upsertSearchAttributes([
      { key: JobStateKey, value: state },
      { key: AgentIdKey, value: agentId },
    ]);
    return state;
  });
  setHandler(bareProtocolResult, ({ leaseId, exitCode }) => {
    if (state !== 'RUNNING' || leaseId !== lease) throw new Error('not assigned');
    state = exitCode === 0 ? 'SUCCEEDED' : 'FAILED';
    upsertSearchAttributes([{ key: JobStateKey, value: state }]);
    return state;
  });
  await condition(() => state === 'SUCCEEDED' || state === 'FAILED');
  return state;
}
