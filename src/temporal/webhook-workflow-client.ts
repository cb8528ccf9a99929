import type { Client } from '@temporalio/client';
import { type LaneInput, type RedeliveryInput, laneWorkflowId, wakeSignal } from '../../workflows/webhook-definitions';
import { WebhookIdKey, WorkspaceIdKey } from '../../workflows/search-attributes';

export interface WebhookWorkflowsOptions {
  taskQueue: string;
  deliveryTimeoutMs: number;
}

/** Starts and wakes the webhook delivery runs (workflows/webhook-delivery.ts). */
export function createWebhookWorkflows(client: Client, { taskQueue, deliveryTimeoutMs }: WebhookWorkflowsOptions) {
  return {
    /** Tells the lane of (endpoint, job) to read the outbox, starting it when it is not running. */
    async wake(lane: { webhookId: string; jobId: string; workspaceId: string; url: string }): Promise<void> {
      const input: LaneInput = { webhookId: lane.webhookId, jobId: lane.jobId, deliveryTimeoutMs };
      await client.workflow.signalWithStart('webhookLane', {
        workflowId: laneWorkflowId(lane.webhookId, lane.jobId),
        taskQueue,
        args: [input],
        signal: wakeSignal,
        signalArgs: [],
        typedSearchAttributes: [
          { key: WebhookIdKey, value: lane.webhookId },
          { key: WorkspaceIdKey, value: lane.workspaceId },
        ],
        staticSummary: `Webhook events of ${lane.jobId} to ${lane.url}`.slice(0, 200),
      });
    },

    /** Sends one logged event again now, as its own run. */
    async redeliver(o: {
      webhookId: string;
      eventSeq: number;
      workspaceId: string;
      redeliveryId: string;
    }): Promise<void> {
      const input: RedeliveryInput = { webhookId: o.webhookId, eventSeq: o.eventSeq, deliveryTimeoutMs };
      await client.workflow.start('webhookRedelivery', {
        workflowId: `webhook-redelivery-${o.redeliveryId}`,
        taskQueue,
        args: [input],
        typedSearchAttributes: [
          { key: WebhookIdKey, value: o.webhookId },
          { key: WorkspaceIdKey, value: o.workspaceId },
        ],
      });
    },
  };
}

export type WebhookWorkflows = ReturnType<typeof createWebhookWorkflows>;
