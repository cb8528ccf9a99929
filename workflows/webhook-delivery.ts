import { proxyActivities, setHandler } from '@temporalio/workflow';
import { declareVersioning } from './versioning';
import type { WebhookActivities } from '../activities/types';
import type { DeliverOutcome, LaneInput, RedeliveryInput } from './webhook-definitions';
import { wakeSignal } from './webhook-definitions';

/**
 * The delivery activities. A failed attempt sets its own next retry delay (exponential, jittered,
 * logged as `nextAttemptAt` before it is thrown), so the backoff rides Temporal's durable retry
 * timers and costs the history nothing per attempt; the policy here only paces failures of our
 * own (the database being down). Temporal retries an activity about a second after it failed at
 * the soonest, whatever nextRetryDelay says: shorter delays come out as a second.
 */
const delivery = (deliveryTimeoutMs: number, summary: string) =>
  proxyActivities<WebhookActivities>({
    startToCloseTimeout: deliveryTimeoutMs + 15_000,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
    summary,
  });

// With Worker Versioning on, lanes and redeliveries move to the current build at their next
// workflow task. Pinned, a lane whose endpoint fails would hold its old build (and its workers,
// which run its delivery attempts) for the whole retry window (WEBHOOK_RETRY_WINDOW_MS, a day),
// and a fix to delivery would reach only lanes opened after it. Their state between tasks is a
// cursor into the outbox, so a change to these loops is a patched() one, as it was unversioned.
declareVersioning('AUTO_UPGRADE', webhookLane);
declareVersioning('AUTO_UPGRADE', webhookRedelivery);

/**
 * One job's events to one endpoint, in order: each event is delivered (or given up on after the
 * retry window) before the next is read from the outbox, by one activity per event. The relay
 * wakes the lane when events arrive, starting it if it had closed; it closes when it finds
 * nothing more, so its history stays a few events long. Lanes of different jobs run side by side.
 */
export async function webhookLane(input: LaneInput): Promise<{ succeeded: number; failed: number; stopped?: string }> {
  let woken = false;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  const { deliverNext } = delivery(input.deliveryTimeoutMs, `next event of ${input.jobId}`);
  const tally = { succeeded: 0, failed: 0 };
  // Undefined: the lane's first read asks the delivery log where an earlier run of it stopped.
  let cursor: number | undefined;
  for (;;) {
    woken = false;
    const next = await deliverNext({
      webhookId: input.webhookId,
      jobId: input.jobId,
      afterSeq: cursor,
      firstAttemptAt: Date.now(),
    });
    if (next.kind === 'stop') return { ...tally, stopped: next.reason };
    if (next.kind === 'none') {
      cursor = next.cursor;
      // A wake that came while we read may announce an event the read missed.
      if (woken) continue;
      return tally;
    }
    cursor = next.seq;
    if (next.outcome === 'disabled') return { ...tally, stopped: 'disabled' };
    tally[next.outcome]++;
  }
}

/** `:redeliver`: the same event once more, now, as one logged attempt. */
export async function webhookRedelivery(input: RedeliveryInput): Promise<DeliverOutcome> {
  return delivery(input.deliveryTimeoutMs, `redelivery of event #${input.eventSeq}`).deliverWebhook({
    webhookId: input.webhookId,
    eventSeq: input.eventSeq,
  });
}
