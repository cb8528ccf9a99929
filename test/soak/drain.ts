import { setTimeout as sleep } from 'node:timers/promises';
import type { SoakClient } from './client';
import type { Submitted } from './workload';
import type { WebhookReceiver } from '../support/webhook-receiver';

// After the last submit: every acknowledged job is read through the API until it is terminal, for
// a bounded time; then the receiver is given time for each terminal job's webhook.

export const TERMINAL = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JobRecord = Record<string, any>;

/** The jobs as the API last showed them (404s and unanswered reads are absent). */
export async function drainJobs(
  client: SoakClient,
  jobs: Submitted[],
  timeoutMs: number,
  say: (msg: string) => void,
): Promise<Map<string, JobRecord>> {
  const seen = new Map<string, JobRecord>();
  const open = new Set(jobs.filter((j) => j.id).map((j) => j.id!));
  const deadline = Date.now() + timeoutMs;
  let reported = 0;
  while (open.size && Date.now() < deadline) {
    for (const id of [...open]) {
      const read = await client.retried('GET', `/v0/jobs/${id}`, undefined, {}, 10_000).catch(() => undefined);
      if (read?.status !== 200) continue;
      seen.set(id, read.body);
      if (TERMINAL.includes(read.body.state)) open.delete(id);
    }
    if (open.size && Date.now() - reported > 10_000) {
      reported = Date.now();
      say(`draining: ${open.size} job(s) not terminal yet`);
    }
    if (open.size) await sleep(1000);
  }
  return seen;
}

/** Waits (bounded) until a `job.terminal` delivery of every terminal job arrived. */
export async function drainWebhooks(
  receiver: WebhookReceiver,
  jobs: Map<string, JobRecord>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const wanted = [...jobs.values()].filter((j) => TERMINAL.includes(j.state)).map((j) => j.id as string);
  for (;;) {
    const delivered = new Set(
      receiver.received
        .filter((r) => r.event?.type === 'job.terminal' && r.answered !== undefined && r.answered < 300)
        .map((r) => r.event.data.job.id),
    );
    if (wanted.every((id) => delivered.has(id)) || Date.now() > deadline) return;
    await sleep(250);
  }
}
