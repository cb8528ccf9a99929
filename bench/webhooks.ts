/**
 * `npm run bench:webhooks`: what webhooks cost and how fast they go. Jobs are submitted and
 * cancelled through the API (in this process, with its worker and relay), each job making three
 * events (created, transitioned, terminal), in rounds alternating between the workspace with two
 * endpoints (two local receivers answering 204) and without any (no endpoint: no event is
 * written).
 *
 * A round with endpoints runs its jobs with the relay paused, so its job rate is the outbox's own
 * cost (the events written in the transitions' statements); then the relay resumes and the round
 * times the delivery of everything waiting to both receivers (deliveries per second). A third
 * figure runs both at once: jobs while their events are delivered, on the same two cores.
 *
 * Options: --jobs (per round, default 300), --concurrency (default 8), --rounds (pairs, default 2).
 *
 * Last line: `webhooks deliveries_per_s=… ratio_job_rate=… ratio_job_p50=… ratio_job_rate_delivering=…`:
 * the ratios are with webhooks / without, in the same run.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '../src/shared/ids';
import { newWebhookSecret } from '../src/webhooks/signing';
import { apiClient } from './api';
import { type BenchStack, option, runBench } from './stack';
import { ms, nowMs, runPool, summarize } from './stats';

const say = (line = '') => process.stdout.write(`${line}\n`);

async function receiver(): Promise<{ url: string; count: () => number; close: () => void }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => n,
    close: () => server.close(),
  };
}

interface Round {
  rate: number;
  p50: number;
  deliveriesPerSecond?: number;
}

type Mode = 'none' | 'outbox' | 'delivering';

runBench(async (stack: BenchStack) => {
  const jobs = option('jobs', 300);
  const concurrency = option('concurrency', 8);
  const rounds = option('rounds', 2);
  const api = apiClient(stack.url);
  const db = stack.db;
  const receivers = [await receiver(), await receiver()];
  const received = () => receivers.reduce((s, r) => s + r.count(), 0);

  async function round(mode: Mode): Promise<Round> {
    // Endpoints are made and removed in the database: the bench measures delivery, not the routes.
    const ids = mode === 'none' ? [] : receivers.map(() => newId('wh'));
    for (const [i, id] of ids.entries()) {
      await db('webhooks').insert({
        id,
        workspace_id: stack.workspaceId,
        url: receivers[i].url,
        events: JSON.stringify(['job.created', 'job.transitioned', 'job.terminal']),
        secret: newWebhookSecret(),
      });
    }
    const relay = stack.service.relay!;
    if (mode === 'outbox') relay.pause();
    const before = received();
    const latencies: number[] = [];
    const wall = await runPool(jobs, concurrency, async () => {
      const t = nowMs();
      const jobId = await api.submit(stack.userKey, { queue: 'nobody' });
      await api.call('/compute/jobs/cancel', { job_id: jobId }, stack.userKey);
      latencies.push(nowMs() - t);
    });
    let deliveriesPerSecond: number | undefined;
    if (mode !== 'none') {
      const want = jobs * 3 * receivers.length;
      const started = nowMs();
      relay.resume();
      const deadline = Date.now() + 600_000;
      while (received() - before < want) {
        if (Date.now() > deadline) throw new Error(`only ${received() - before} of ${want} deliveries arrived`);
        await new Promise((r) => setTimeout(r, 20));
      }
      deliveriesPerSecond = (want / (nowMs() - started)) * 1000;
      await db('webhooks').whereIn('id', ids).update({ deleted_at: db.fn.now(), enabled: false });
    }
    return { rate: (jobs / wall) * 1000, p50: summarize(latencies).p50, deliveriesPerSecond };
  }

  await round('none'); // warm-up, not counted
  const rounds_: Record<Mode, Round[]> = { none: [], outbox: [], delivering: [] };
  for (let r = 0; r < rounds; r++) {
    // Alternate the order, so a drift over the run falls on each.
    const order: Mode[] = r % 2 === 0 ? ['outbox', 'none', 'delivering'] : ['delivering', 'none', 'outbox'];
    for (const mode of order) {
      const got = await round(mode);
      rounds_[mode].push(got);
      const label = {
        none: 'no endpoint           ',
        outbox: 'two endpoints, relay paused',
        delivering: 'two endpoints, delivering',
      }[mode];
      say(
        `  round ${r + 1} ${label}: ${got.rate.toFixed(0)} jobs/s (submit + cancel), p50 ${ms(got.p50)} ms` +
          (mode === 'outbox' ? `; then ${jobs * 6} deliveries at ${got.deliveriesPerSecond!.toFixed(0)}/s` : ''),
      );
    }
  }
  for (const r of receivers) r.close();
  const mean = (rs: Round[], k: keyof Round) => rs.reduce((s, x) => s + (x[k] ?? 0), 0) / rs.length;
  return (
    `webhooks deliveries_per_s=${mean(rounds_.outbox, 'deliveriesPerSecond').toFixed(0)} ` +
    `ratio_job_rate=${(mean(rounds_.outbox, 'rate') / mean(rounds_.none, 'rate')).toFixed(2)} ratio_job_p50=${(mean(rounds_.outbox, 'p50') / mean(rounds_.none, 'p50')).toFixed(2)} ` +
    `ratio_job_rate_delivering=${(mean(rounds_.delivering, 'rate') / mean(rounds_.none, 'rate')).toFixed(2)}`
  );
});
