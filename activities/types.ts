import type { AttemptCheck, ProjectJobInput, Rebase } from '../workflows/definitions';
import type { MeterReport } from '../src/billing/meter';
import type { DeliverNextInput, DeliverOutcome, NextDelivery } from '../workflows/webhook-definitions';

/** The activities the job workflow calls; the workflow imports this file for types only. */
export interface JobActivities {
  /** Offsets only for a reset run's takeover (ProjectJobInput.takeover). */
  projectJob(input: ProjectJobInput): Promise<Rebase | void>;
  checkAttempt(input: { leaseId: string; lostAfterMs: number }): Promise<AttemptCheck>;
}

/** The activities of webhook delivery (workflows/webhook-delivery.ts). */
export interface WebhookActivities {
  /**
   * Finds the lane's next event and makes one attempt at it; throws (with its next retry delay)
   * when the attempt failed and will be retried, so a retry attempts the same event again.
   */
  deliverNext(input: DeliverNextInput): Promise<NextDelivery>;
  /** A redelivery: one attempt at the event `eventSeq`, logged, never retried. */
  deliverWebhook(input: { webhookId: string; eventSeq: number }): Promise<DeliverOutcome>;
}

/** The meter's activity (workflows/meter.ts): one tick for the window ending at `windowEnd`. */
export interface MeterActivities {
  meterWindow(input: { windowEnd: string }): Promise<MeterReport>;
}

/** The billing periods' activities (workflows/billing-period.ts). */
export interface BillingPeriodActivities {
  /** Closes the periods that ended by `at`; `graceMs`: how long their drafts wait before they open. */
  closeBillingPeriods(input: { at: string }): Promise<{ periods: number; invoices: number; graceMs: number }>;
  /** Opens the drafts whose grace ended by `at`. */
  openInvoices(input: { at: string }): Promise<{ opened: number }>;
}
