import { ApplicationFailure, condition, defineUpdate, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { AgentIdKey, JobStateKey } from '../workflows/search-attributes';

// The bare service's job workflow (bench/bare-service-server.ts): the job protocol's transitions
// and, once assigned, one timer raced against the result, as the job workflow arms its loss and
// timeout clock. No state machine, no projection, no codec. Deterministic code only.

export const bareServiceAssign = defineUpdate<string, [{ leaseId: string; agentId: string }]>('assign');
export const bareServiceResult = defineUpdate<string, [{ leaseId: string; exitCode: number }]>('result');

export async function bareServiceJob(lostAfterMs: number): Promise<string> {
  let state = 'QUEUED';
  let lease: string | undefined;
  setHandler(bareServiceAssign, ({ leaseId, agentId }) => {
    if (state !== 'QUEUED') throw ApplicationFailure.nonRetryable(`not queued: ${state}`);
    state = 'RUNNING';
    lease = leaseId;
    upsertSearchAttributes([
      { key: JobStateKey, value: state },
      { key: AgentIdKey, value: agentId },
    ]);
    return state;
  });
  setHandler(bareServiceResult, ({ leaseId, exitCode }) => {
    if (state !== 'RUNNING' || leaseId !== lease) throw ApplicationFailure.nonRetryable('not assigned');
    state = exitCode === 0 ? 'SUCCEEDED' : 'FAILED';
    upsertSearchAttributes([{ key: JobStateKey, value: state }]);
    return state;
  });
  await condition(() => state !== 'QUEUED');
  // The agent's loss clock: no result within it and the job fails.
  if (!(await condition(() => state !== 'RUNNING', lostAfterMs))) {
    state = 'FAILED';
    upsertSearchAttributes([{ key: JobStateKey, value: state }]);
  }
  return state;
}
