import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { ResetRunOf } from '../jobs/reset-takeover';

const RESET_CAUSE = temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW;

/**
 * Reads a reset run from Temporal: it is current while it is the workflow's latest run (a reset
 * or a retry since makes another run the latest), and its history's reset event carries the
 * reason the operator gave.
 */
export function resetRunsOf(client: Client): ResetRunOf {
  return async (workflowId, runId) => {
    const latest = await client.workflow.getHandle(workflowId).describe();
    if (latest.runId !== runId) return { current: false, reason: '' };
    const { events } = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const reset = events?.find((e) => e.workflowTaskFailedEventAttributes?.cause === RESET_CAUSE);
    return { current: true, reason: reset?.workflowTaskFailedEventAttributes?.failure?.message || 'no reason given' };
  };
}
