import type { AttemptCheck, ProjectJobInput } from '../workflows/definitions';
import type { DeliverInput, DeliverOutcome, NextEvent } from '../workflows/webhook-definitions';

/** The activities the job workflow calls; the workflow imports this file for types only. */
export interface JobActivities {
  projectJob(input: ProjectJobInput): Promise<void>;
  checkAttempt(input: { leaseId: string; lostAfterMs: number }): Promise<AttemptCheck>;
}

/** The activities of webhook delivery (workflows/webhook-delivery.ts). */
export interface WebhookActivities {
  /** The lane's next event after `afterSeq` (undefined: after what the delivery log shows done). */
  nextWebhookEvent(input: { webhookId: string; jobId: string; afterSeq?: number }): Promise<NextEvent>;
  /** One attempt; throws (with its next retry delay) when the attempt failed and will be retried. */
  deliverWebhook(input: DeliverInput): Promise<DeliverOutcome>;
}
