import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { WebhookWorkflows } from '../temporal/webhook-workflow-client';

const BATCH = 500;
const SIGNALS_AT_ONCE = 16;
/** How often a relay removes what is past retention. */
const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * Hands the outbox to delivery: each new event wakes the lane of its job at each endpoint that
 * takes it (starting the lane's run if needed), and is then marked relayed, in one transaction
 * that holds the events it took (other relays skip them). A crash or a Temporal outage before the
 * mark leaves the events to be relayed again: a second wake costs nothing, as a lane reads what to
 * send from the outbox and the delivery log, never from the wake.
 */
export function createWebhookRelay({
  db,
  workflows,
  log,
  retentionDays,
}: {
  db: Knex;
  workflows: WebhookWorkflows;
  log: Logger;
  retentionDays: number;
}) {
  async function relayBatch(): Promise<number> {
    return db.transaction(async (trx) => {
      const events = await trx('webhook_events')
        .where({ relayed: false })
        .orderBy('seq')
        .limit(BATCH)
        .forUpdate()
        .skipLocked()
        .select('seq', 'workspace_id', 'job_id', 'type', 'created_at');
      if (!events.length) return 0;
      const hooks = await trx('webhooks')
        .whereIn('workspace_id', [...new Set(events.map((e) => e.workspace_id))])
        .where({ enabled: true })
        .whereNull('deleted_at')
        .select('id', 'workspace_id', 'events', 'url', 'created_at');
      const lanes = new Map<string, { webhookId: string; jobId: string; workspaceId: string; url: string }>();
      for (const e of events) {
        for (const h of hooks) {
          if (h.workspace_id !== e.workspace_id || !h.events.includes(e.type) || e.created_at < h.created_at) continue;
          lanes.set(`${h.id} ${e.job_id}`, {
            webhookId: h.id,
            jobId: e.job_id,
            workspaceId: e.workspace_id,
            url: h.url,
          });
        }
      }
      const queue = [...lanes.values()];
      await Promise.all(
        Array.from({ length: Math.min(SIGNALS_AT_ONCE, queue.length) }, async () => {
          for (let lane = queue.shift(); lane; lane = queue.shift()) await workflows.wake(lane);
        }),
      );
      await trx('webhook_events')
        .whereIn(
          'seq',
          events.map((e) => e.seq),
        )
        .update({ relayed: true });
      return events.length;
    });
  }

  return {
    /** Removes relayed events and delivery attempts older than the retention; returns how many rows. */
    async sweep(): Promise<number> {
      const cutoff = db.raw('now() - make_interval(days => ?)', [retentionDays]);
      const events = await db('webhook_events').where({ relayed: true }).where('created_at', '<', cutoff).delete();
      const attempts = await db('webhook_deliveries').where('created_at', '<', cutoff).delete();
      return events + attempts;
    },

    /** Relays everything waiting; returns how many events it relayed. */
    async relayAll(): Promise<number> {
      let total = 0;
      for (let n = await relayBatch(); n > 0; n = n === BATCH ? await relayBatch() : 0) total += n;
      return total;
    },

    /** Relays every `intervalMs` until stopped; `pause` holds it (a test runs a relay of its own). */
    start(intervalMs: number) {
      let stopped = false;
      let paused = false;
      let running: Promise<unknown> = Promise.resolve();
      let sweptAt = 0;
      const tick = async () => {
        if (stopped) return;
        if (!paused) {
          running = this.relayAll().catch((err) => log.warn({ err: String(err) }, 'webhook relay failed; retrying'));
          await running;
          if (Date.now() - sweptAt > SWEEP_EVERY_MS) {
            sweptAt = Date.now();
            running = this.sweep().catch((err) => log.warn({ err: String(err) }, 'webhook sweep failed'));
            await running;
          }
        }
        if (!stopped) timer = setTimeout(tick, intervalMs);
      };
      let timer = setTimeout(tick, intervalMs);
      return {
        pause: () => void (paused = true),
        resume: () => void (paused = false),
        async stop() {
          stopped = true;
          clearTimeout(timer);
          await running;
        },
      };
    },
  };
}

export type WebhookRelay = ReturnType<ReturnType<typeof createWebhookRelay>['start']>;
