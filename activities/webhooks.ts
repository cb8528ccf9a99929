import { ApplicationFailure } from '@temporalio/common';
import type { Knex } from 'knex';
import type { WebhookSettings } from '../src/config';
import { newId } from '../src/shared/ids';
import { webhookAttempts } from '../src/metrics/registry';
import { retryDelayMs } from '../src/webhooks/backoff';
import { eventBody } from '../src/webhooks/event-body';
import { postWebhook } from '../src/webhooks/send';
import { SpanStatusCode } from '@opentelemetry/api';
import { contextOf, inSpan, traceparentOf } from '../src/telemetry/tracing';
import { signedHeaders } from '../src/webhooks/signing';
import type { SecretBox } from '../src/webhooks/secret-box';
import type { Resolver } from '../src/webhooks/target-guard';
import { ATTEMPT_FAILED, type DeliverOutcome, type NextDelivery } from '../workflows/webhook-definitions';
import type { WebhookActivities } from './types';

export interface WebhookActivityDeps {
  db: Knex;
  settings: WebhookSettings;
  /** Opens the endpoints' stored (sealed) secrets. */
  secrets: SecretBox;
  /** How target hostnames are resolved (tests inject one); the system's resolver by default. */
  resolve?: Resolver;
}

type Hook = {
  id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
};
type EventRow = {
  seq: string | number;
  id: string;
  type: string;
  job_id: string;
  created_at: Date;
  data: Parameters<typeof eventBody>[0]['data'];
};

/** The stored secrets that sign now: the current one, and the previous one until its overlap ends. */
const signingSecrets = (hook: Hook, now: Date) =>
  hook.previous_secret && hook.previous_secret_expires_at && hook.previous_secret_expires_at > now
    ? [hook.secret, hook.previous_secret]
    : [hook.secret];

const EVENT_COLUMNS = ['seq', 'id', 'type', 'job_id', 'created_at', 'data'];

export function createWebhookActivities({ db, settings, secrets, resolve }: WebhookActivityDeps): WebhookActivities {
  /**
   * One attempt at one event, logged. A failure that will be retried is logged `pending` with its
   * `nextAttemptAt` and thrown with that delay, so Temporal's retry comes then.
   */
  async function attempt(
    hook: Hook,
    event: EventRow,
    firstAttemptAt: number,
    redelivery: boolean,
  ): Promise<'succeeded' | 'failed' | 'disabled'> {
    const body = JSON.stringify(eventBody(event));
    const at = new Date();
    // A span of the job's trace (the event's job row keeps its submit's context); the receiver
    // gets its `traceparent` and may join.
    const sent = await inSpan(
      'webhook.deliver',
      { 'job.id': event.job_id, 'webhook.id': hook.id, 'webhook.event.type': event.type, 'webhook.event.id': event.id },
      async (span) => {
        const traceparent = traceparentOf();
        const result = await postWebhook({
          url: hook.url,
          headers: {
            ...signedHeaders(
              signingSecrets(hook, at).map((stored) => secrets.open(stored, hook.id)),
              event.id,
              at,
              body,
            ),
            ...(traceparent && { traceparent }),
          },
          body,
          timeoutMs: settings.timeoutMs,
          bodyLimitBytes: settings.responseBodyBytes,
          policy: { allowPrivate: settings.allowPrivateTargets },
          resolve,
        });
        if (result.status !== null) span?.setAttribute('http.response.status_code', result.status);
        if (!result.ok)
          span?.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? `answered ${result.status}` });
        return result;
      },
      contextOf(event.data.job.trace_parent as string | null | undefined),
    );
    const gone = sent.status === 410;
    const final = sent.ok || gone || redelivery || Date.now() - firstAttemptAt >= settings.retryWindowMs;
    const status = sent.ok ? 'succeeded' : final ? 'failed' : 'pending';
    const error = sent.error ?? (sent.ok ? null : `receiver answered ${sent.status}`);
    const delay = await db.transaction(async (trx) => {
      const [{ n }] = await trx('webhook_deliveries')
        .where({ webhook_id: hook.id, event_id: event.id })
        .count({ n: '*' });
      const number = Number(n) + 1;
      const wait = status === 'pending' ? retryDelayMs(number, settings) : null;
      await trx('webhook_deliveries').insert({
        id: newId('dlv'),
        webhook_id: hook.id,
        event_id: event.id,
        event_seq: event.seq,
        job_id: event.job_id,
        event_type: event.type,
        attempt: number,
        status,
        response_status: sent.status,
        response_body: sent.body || null,
        error,
        duration_ms: sent.durationMs,
        redelivery,
        next_attempt_at: wait === null ? null : new Date(Date.now() + wait),
      });
      if (gone)
        await trx('webhooks')
          .where({ id: hook.id })
          .update({ enabled: false, disabled_reason: 'the receiver answered 410 Gone' });
      return wait;
    });
    webhookAttempts.inc({ outcome: status === 'pending' ? 'retrying' : status });
    if (delay !== null)
      throw ApplicationFailure.create({ type: ATTEMPT_FAILED, message: error ?? 'failed', nextRetryDelay: delay });
    return gone ? 'disabled' : status === 'succeeded' ? 'succeeded' : 'failed';
  }

  return {
    async deliverNext({ webhookId, jobId, afterSeq, firstAttemptAt }): Promise<NextDelivery> {
      const hook = await db('webhooks').where({ id: webhookId }).first();
      if (!hook || hook.deleted_at) return { kind: 'stop', reason: 'deleted' };
      if (!hook.enabled) return { kind: 'stop', reason: 'disabled' };
      // A lane run that starts again continues after what earlier runs finished; redeliveries
      // are extra sends and move nothing.
      const cursor =
        afterSeq ??
        Number(
          (
            await db('webhook_deliveries')
              .where({ webhook_id: webhookId, job_id: jobId, redelivery: false })
              .whereIn('status', ['succeeded', 'failed'])
              .max('event_seq as done')
              .first()
          )?.done ?? 0,
        );
      // A retry of this activity reads the same event: the lane's cursor moves only once it returns.
      const event: EventRow | undefined = await db('webhook_events')
        .where({ job_id: jobId, workspace_id: hook.workspace_id })
        .where('seq', '>', cursor)
        .whereRaw('type = ANY(?::text[])', [hook.events])
        .where('created_at', '>=', hook.created_at)
        .orderBy('seq')
        .first(EVENT_COLUMNS);
      if (!event) return { kind: 'none', cursor };
      return { kind: 'delivered', seq: Number(event.seq), outcome: await attempt(hook, event, firstAttemptAt, false) };
    },

    async deliverWebhook({ webhookId, eventSeq }): Promise<DeliverOutcome> {
      const hook = await db('webhooks').where({ id: webhookId }).first();
      if (!hook || hook.deleted_at) return 'dropped';
      if (!hook.enabled) return 'disabled';
      const event: EventRow | undefined = await db('webhook_events').where({ seq: eventSeq }).first(EVENT_COLUMNS);
      if (!event) return 'dropped';
      return attempt(hook, event, Date.now(), true);
    },
  };
}
