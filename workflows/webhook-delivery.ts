import { proxyActivities, setHandler } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/types';
import type { DeliverInput, DeliverOutcome, LaneInput, RedeliveryInput } from './webhook-definitions';
import { wakeSignal } from './webhook-definitions';

const { nextWebhookEvent } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '10s' },
});

/**
 * The delivery activity. A failed attempt sets its own next retry delay (exponential, jittered,
 * and logged as `nextAttemptAt` before it is thrown), so the backoff rides Temporal's durable
 * retry timers and costs the history nothing per attempt; the policy here only paces failures of
 * our own (the database being down). The summary names the event in the UI's timeline.
 */
function deliver(input: DeliverInput, deliveryTimeoutMs: number, summary: string): Promise<DeliverOutcome> {
  const { deliverWebhook } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: deliveryTimeoutMs + 15_000,
    // Temporal retries an activity about a second after it failed at the soonest, whatever
    // nextRetryDelay says: delays below that come out as a second.
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
    summary,
  });
  return deliverWebhook(input);
}

/**
 * One job's events to one endpoint, in order: each event is delivered (or given up on after the
 * retry window) before the next is read from the outbox. The relay wakes the lane when events
 * arrive, starting it if it had closed; it closes when it finds nothing more, so its history
 * stays a few events long. Lanes of different jobs run side by side.
 */
export async function webhookLane(input: LaneInput): Promise<{ succeeded: number; failed: number; stopped?: string }> {
  let woken = false;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  const tally = { succeeded: 0, failed: 0 };
  // Undefined: the lane's first read asks the delivery log where an earlier run of it stopped.
  let cursor: number | undefined;
  for (;;) {
    woken = false;
    const next = await nextWebhookEvent({ webhookId: input.webhookId, jobId: input.jobId, afterSeq: cursor });
    if (next.kind === 'stop') return { ...tally, stopped: next.reason };
    if (next.kind === 'none') {
      cursor = next.cursor;
      // A wake that came while we read may announce an event the read missed.
      if (woken) continue;
      return tally;
    }
    const outcome = await deliver(
      { webhookId: input.webhookId, eventSeq: next.seq, firstAttemptAt: Date.now() },
      input.deliveryTimeoutMs,
      `${next.type} ${next.eventId} → ${next.url}`,
    );
    cursor = next.seq;
    if (outcome === 'succeeded') tally.succeeded++;
    else if (outcome === 'failed') tally.failed++;
    else return { ...tally, stopped: outcome };
  }
}

/** `:redeliver`: the same event once more, now, as one logged attempt. */
export async function webhookRedelivery(input: RedeliveryInput): Promise<DeliverOutcome> {
  return deliver({ webhookId: input.webhookId, eventSeq: input.eventSeq, firstAttemptAt: Date.now(), redelivery: true }, input.deliveryTimeoutMs, `redelivery of event #${input.eventSeq}`);
}
