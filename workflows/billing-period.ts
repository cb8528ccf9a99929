import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import { declareVersioning } from './versioning';
import type { BillingPeriodActivities } from '../activities/types';
import { ScheduledStartTimeKey } from './search-attributes';

// Closing and opening are idempotent; a failed step is retried until it holds. They heartbeat
// after each batch of accounts, so one whose worker died is retried within the heartbeat timeout.
const { closeBillingPeriods, openInvoices } = proxyActivities<BillingPeriodActivities>({
  startToCloseTimeout: '30m',
  heartbeatTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
});

// A run closes periods, waits out the drafts' grace on a timer, then opens invoices: both steps
// are idempotent over PostgreSQL. With Worker Versioning on it moves to the current build at its
// next task (the timer's end) rather than pinning an old build for the grace and its retries; a
// change to this function is a patched() one.
declareVersioning('AUTO_UPGRADE', billingPeriod);

/**
 * A run of the billing periods schedule (CONTRACT §9): closes the periods that ended by the time
 * it was due (a run late or twice closes the same ones), waits out the drafts' grace on a durable
 * timer, so the entries of the periods' last windows land, then opens the drafts due by then.
 * A run triggered by hand is due at the start of the trigger's second (Temporal cuts a scheduled
 * start to the second): a period that ended within that second closes at the next run.
 */
export async function billingPeriod(): Promise<{ at: string; periods: number; invoices: number; opened: number }> {
  const due = workflowInfo().typedSearchAttributes.get(ScheduledStartTimeKey) ?? new Date(Date.now());
  const closed = await closeBillingPeriods({ at: due.toISOString() });
  await sleep(closed.graceMs);
  const { opened } = await openInvoices({ at: new Date(due.getTime() + closed.graceMs).toISOString() });
  return { at: due.toISOString(), periods: closed.periods, invoices: closed.invoices, opened };
}
