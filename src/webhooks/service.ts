import type { Knex } from 'knex';
import { appendAudit } from '../audit/log';
import { auditBy, authorize } from '../auth/authorize';
import type { Principal } from '../auth/principal';
import type { ApiConfig } from '../config';
import { lockOwner, refuseAtBound } from '../shared/count-bound';
import { type PageRequest, decodeCursor, pageOf } from '../shared/cursor';
import { AppError, notFound } from '../shared/errors';
import { LEGACY_WEBHOOK_PREFIX, newId } from '../shared/ids';
import { iso, isoOrNull } from '../shared/time';
import type { WebhookWorkflows } from '../temporal/webhook-workflow-client';
import { EVENT_TYPES, type EventType } from '../jobs/outbox';
import type { SecretBox } from './secret-box';
import { newWebhookSecret } from './signing';
import { type Resolver, TargetRefusedError, checkTarget } from './target-guard';

// Webhook endpoints of a workspace (CONTRACT §7), an admin's: registered after their target
// passes the SSRF guard, listed without secrets, deleted (nothing more is sent), rotated (both
// secrets sign for the overlap), and their delivery log read and acted on.

export interface WebhookRecord {
  id: string;
  url: string;
  events: EventType[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: string;
  previousSecretExpiresAt: string | null;
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  eventType: EventType;
  jobId: string;
  attempt: number;
  status: 'pending' | 'succeeded' | 'failed';
  redelivery: boolean;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  createdAt: string;
  nextAttemptAt: string | null;
}

const recordOf = (r: Record<string, unknown>): WebhookRecord => ({
  id: r.id as string,
  url: r.url as string,
  events: r.events as EventType[],
  description: (r.description as string | null) ?? null,
  enabled: r.enabled as boolean,
  disabledReason: (r.disabled_reason as string | null) ?? null,
  createdAt: iso(r.created_at as Date),
  // Past its end the previous secret no longer signs: nothing to report.
  previousSecretExpiresAt:
    r.previous_secret_expires_at && (r.previous_secret_expires_at as Date) > new Date()
      ? iso(r.previous_secret_expires_at as Date)
      : null,
});

const deliveryOf = (r: Record<string, unknown>): DeliveryRecord => ({
  id: r.id as string,
  eventId: r.event_id as string,
  eventType: r.event_type as EventType,
  jobId: r.job_id as string,
  attempt: r.attempt as number,
  status: r.status as DeliveryRecord['status'],
  redelivery: r.redelivery as boolean,
  responseStatus: (r.response_status as number | null) ?? null,
  responseBody: (r.response_body as string | null) ?? null,
  error: (r.error as string | null) ?? null,
  durationMs: r.duration_ms as number,
  createdAt: iso(r.created_at as Date),
  nextAttemptAt: isoOrNull(r.next_attempt_at as Date | null),
});

export interface WebhooksDeps {
  db: Knex;
  config: Pick<ApiConfig, 'counts' | 'webhooks' | 'dependencyRetryAfterSeconds'>;
  /** Absent where no Temporal client runs: redelivery then answers 503. */
  workflows?: WebhookWorkflows;
  /** How target hostnames are resolved (tests inject one). */
  resolve?: Resolver;
  /** Seals each secret before it is stored; the caller gets it in clear once. */
  secrets: SecretBox;
}

export function createWebhooksService({ db, config, workflows, resolve, secrets }: WebhooksDeps) {
  const policy = { allowPrivate: config.webhooks.allowPrivateTargets };
  const live = (p: Principal) => db('webhooks').where({ workspace_id: p.workspaceId }).whereNull('deleted_at');

  async function find(p: Principal, id: string) {
    const row = await live(p).where({ id }).first();
    if (!row) throw notFound('Webhook');
    return row;
  }

  return {
    async create(
      p: Principal,
      body: { url: string; events?: EventType[]; description?: string },
    ): Promise<WebhookRecord & { secret: string }> {
      await authorize(db, p, 'webhook.create', { type: 'webhook', id: 'new' });
      try {
        await checkTarget(body.url, policy, resolve);
      } catch (err) {
        if (!(err instanceof TargetRefusedError)) throw err;
        throw new AppError('request.invalid', `The webhook URL is refused: ${err.message}`, {
          fields: [{ path: 'url', message: err.message }],
        });
      }
      const id = newId('wh');
      const secret = newWebhookSecret();
      const events = body.events?.length ? [...new Set(body.events)] : [...EVENT_TYPES];
      const row = await db.transaction(async (trx) => {
        await lockOwner(trx, 'workspaces', p.workspaceId);
        await refuseAtBound(
          trx('webhooks').where({ workspace_id: p.workspaceId }).whereNull('deleted_at'),
          config.counts.webhookEndpoints,
          'Webhook endpoints in a workspace',
        );
        const [made] = await trx('webhooks')
          .insert({
            id,
            workspace_id: p.workspaceId,
            url: body.url,
            events: JSON.stringify(events),
            description: body.description ?? null,
            secret: secrets.seal(secret, id),
          })
          .returning('*');
        await appendAudit(trx, {
          ...auditBy(p),
          action: 'webhook.create',
          target: { type: 'webhook', id },
          details: { url: body.url, events },
        });
        return made;
      });
      return { ...recordOf(row), secret };
    },

    async list(p: Principal, page: PageRequest) {
      await authorize(db, p, 'webhook.read', { type: 'workspace', id: p.workspaceId });
      const q = live(p);
      // Older `whk_` IDs sort after every `wh_` one: still one total order, so pages never skip or repeat.
      if (page.cursor) q.where('id', '<', decodeCursor(page.cursor, ['wh', LEGACY_WEBHOOK_PREFIX], 'pageToken'));
      return pageOf(await q.orderBy('id', 'desc').limit(page.limit + 1), page.limit, recordOf);
    },

    async get(p: Principal, id: string): Promise<WebhookRecord> {
      await authorize(db, p, 'webhook.read', { type: 'webhook', id });
      return recordOf(await find(p, id));
    },

    /** Nothing more is sent: lanes stop at their next read or attempt; the delivery log stays. */
    async remove(p: Principal, id: string): Promise<void> {
      await find(p, id);
      await authorize(db, p, 'webhook.delete', { type: 'webhook', id });
      await db.transaction(async (trx) => {
        const changed = await trx('webhooks')
          .where({ id })
          .whereNull('deleted_at')
          .update({ deleted_at: trx.fn.now(), enabled: false });
        if (changed)
          await appendAudit(trx, {
            ...auditBy(p),
            action: 'webhook.delete',
            target: { type: 'webhook', id },
            details: {},
          });
      });
    },

    /** A new secret; the one it replaces still signs for the overlap (CONTRACT §7: 24 h). */
    async rotateSecret(
      p: Principal,
      id: string,
    ): Promise<{ id: string; secret: string; previousSecretExpiresAt: string }> {
      await find(p, id);
      await authorize(db, p, 'webhook.rotate_secret', { type: 'webhook', id });
      const secret = newWebhookSecret();
      const row = await db.transaction(async (trx) => {
        const [changed] = await trx('webhooks')
          .where({ id })
          .update({
            // Moved as stored: sealed for this same endpoint, it opens as the previous one too.
            previous_secret: trx.ref('secret'),
            previous_secret_expires_at: trx.raw('now() + make_interval(secs => ?)', [
              config.webhooks.secretOverlapMs / 1000,
            ]),
            secret: secrets.seal(secret, id),
          })
          .returning('previous_secret_expires_at');
        await appendAudit(trx, {
          ...auditBy(p),
          action: 'webhook.rotate_secret',
          target: { type: 'webhook', id },
          details: { previousSecretExpiresAt: iso(changed.previous_secret_expires_at) },
        });
        return changed;
      });
      return { id, secret, previousSecretExpiresAt: iso(row.previous_secret_expires_at) };
    },

    /** Every attempt to this endpoint, newest first. */
    async deliveries(p: Principal, id: string, page: PageRequest & { eventId?: string; status?: string }) {
      await find(p, id);
      await authorize(db, p, 'webhook.read', { type: 'webhook', id });
      const q = db('webhook_deliveries').where({ webhook_id: id });
      if (page.eventId) q.where({ event_id: page.eventId });
      if (page.status) q.where({ status: page.status });
      if (page.cursor) q.where('id', '<', decodeCursor(page.cursor, 'dlv', 'pageToken'));
      return pageOf(await q.orderBy('id', 'desc').limit(page.limit + 1), page.limit, deliveryOf);
    },

    /** The delivery's event once more, now, as a new logged attempt (202: it runs on Temporal). */
    async redeliver(
      p: Principal,
      id: string,
      deliveryId: string,
    ): Promise<{ webhookId: string; eventId: string; redeliveryOf: string }> {
      const hook = await find(p, id);
      await authorize(db, p, 'webhook.redeliver', { type: 'webhook', id });
      const delivery = await db('webhook_deliveries')
        .where({ id: deliveryId, webhook_id: id })
        .first('event_id', 'event_seq');
      if (!delivery) throw notFound('Delivery');
      if (!hook.enabled)
        throw new AppError('resource.conflict', 'The webhook is disabled: nothing is sent to it', {
          reason: 'webhook_disabled',
          disabledReason: hook.disabled_reason,
        });
      if (!workflows)
        throw new AppError(
          'dependency.unavailable',
          'Redelivery needs the workflow service',
          undefined,
          config.dependencyRetryAfterSeconds,
        );
      await workflows
        .redeliver({
          webhookId: id,
          eventSeq: Number(delivery.event_seq),
          workspaceId: p.workspaceId,
          redeliveryId: newId('dlv'),
        })
        .catch((err) => {
          throw new AppError(
            'dependency.unavailable',
            'The workflow service did not take the redelivery; try again',
            undefined,
            config.dependencyRetryAfterSeconds,
            err,
          );
        });
      return { webhookId: id, eventId: delivery.event_id, redeliveryOf: deliveryId };
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
