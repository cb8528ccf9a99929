import { ApplicationFailure } from '@temporalio/common';
import type { Knex } from 'knex';
import type { WebhookSettings } from '../src/config';
import { newId } from '../src/shared/ids';
import { retryDelayMs } from '../src/webhooks/backoff';
import { eventBody } from '../src/webhooks/event-body';
import { postWebhook } from '../src/webhooks/send';
import { signedHeaders } from '../src/webhooks/signing';
import type { Resolver } from '../src/webhooks/target-guard';
import { ATTEMPT_FAILED, type DeliverOutcome } from '../workflows/webhook-definitions';
import type { WebhookActivities } from './types';

export interface WebhookActivityDeps {
  db: Knex;
  settings: WebhookSettings;
  /** How target hostnames are resolved (tests inject one); the system's resolver by default. */
  resolve?: Resolver;
}

/** The secrets that sign now: the current one, and the previous one until its overlap ends. */
const signingSecrets = (hook: { secret: string; previous_secret: string | null; previous_secret_expires_at: Date | null }, now: Date) =>
  hook.previous_secret && hook.previous_secret_expires_at && hook.previous_secret_expires_at > now ? [hook.secret, hook.previous_secret] : [hook.secret];

export function createWebhookActivities({ db, settings, resolve }: WebhookActivityDeps): WebhookActivities {
  return {
    async nextWebhookEvent({ webhookId, jobId, afterSeq }) {
      const hook = await db('webhooks').where({ id: webhookId }).first('workspace_id', 'events', 'url', 'enabled', 'deleted_at', 'created_at');
      if (!hook || hook.deleted_at) return { kind: 'stop', reason: 'deleted' };
      if (!hook.enabled) return { kind: 'stop', reason: 'disabled' };
      // A lane run that starts again continues after what earlier runs finished; redeliveries
      // are extra sends and move nothing.
      const cursor =
        afterSeq ??
        Number(
          (await db('webhook_deliveries')
            .where({ webhook_id: webhookId, job_id: jobId, redelivery: false })
            .whereIn('status', ['succeeded', 'failed'])
            .max('event_seq as done')
            .first())?.done ?? 0,
        );
      const next = await db('webhook_events')
        .where({ job_id: jobId, workspace_id: hook.workspace_id })
        .where('seq', '>', cursor)
        .whereRaw('type = ANY(?::text[])', [hook.events])
        .where('created_at', '>=', hook.created_at)
        .orderBy('seq')
        .first('seq', 'id', 'type');
      if (!next) return { kind: 'none', cursor };
      return { kind: 'event', seq: Number(next.seq), eventId: next.id, type: next.type, url: hook.url };
    },

    async deliverWebhook({ webhookId, eventSeq, firstAttemptAt, redelivery }): Promise<DeliverOutcome> {
      const hook = await db('webhooks').where({ id: webhookId }).first();
      if (!hook || hook.deleted_at) return 'dropped';
      if (!hook.enabled) return 'disabled';
      const event = await db('webhook_events').where({ seq: eventSeq }).first('seq', 'id', 'type', 'job_id', 'created_at', 'data');
      if (!event) return 'dropped';
      const body = JSON.stringify(eventBody(event));
      const at = new Date();
      const sent = await postWebhook({
        url: hook.url,
        headers: signedHeaders(signingSecrets(hook, at), event.id, at, body),
        body,
        timeoutMs: settings.timeoutMs,
        bodyLimitBytes: settings.responseBodyBytes,
        policy: { allowPrivate: settings.allowPrivateTargets },
        resolve,
      });
      const gone = sent.status === 410;
      const final = sent.ok || gone || redelivery || Date.now() - firstAttemptAt >= settings.retryWindowMs;
      const status = sent.ok ? 'succeeded' : final ? 'failed' : 'pending';
      const attempt = await db.transaction(async (trx) => {
        const [{ n }] = await trx('webhook_deliveries').where({ webhook_id: webhookId, event_id: event.id }).count({ n: '*' });
        const attempt = Number(n) + 1;
        const delay = status === 'pending' ? retryDelayMs(attempt, settings) : null;
        await trx('webhook_deliveries').insert({
          id: newId('dlv'),
          webhook_id: webhookId,
          event_id: event.id,
          event_seq: event.seq,
          job_id: event.job_id,
          event_type: event.type,
          attempt,
          status,
          response_status: sent.status,
          response_body: sent.body || null,
          error: sent.error ?? (sent.ok ? null : `receiver answered ${sent.status}`),
          duration_ms: sent.durationMs,
          redelivery: Boolean(redelivery),
          next_attempt_at: delay === null ? null : new Date(Date.now() + delay),
        });
        if (gone) await trx('webhooks').where({ id: webhookId }).update({ enabled: false, disabled_reason: 'the receiver answered 410 Gone' });
        return { delay };
      });
      if (attempt.delay !== null) {
        throw ApplicationFailure.create({
          type: ATTEMPT_FAILED,
          message: sent.error ?? `receiver answered ${sent.status}`,
          nextRetryDelay: attempt.delay,
        });
      }
      return gone ? 'disabled' : status === 'succeeded' ? 'succeeded' : 'failed';
    },
  };
}
