// temporal: dev, server
import assert from 'node:assert/strict';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import type { ManagedChild } from '../../src/stack/child';
import { freePort } from '../../src/stack/ports';
import { spawnApi } from '../support/api-process';
import { login } from '../support/auth';
import { quietLog, testEnv } from '../support/env';
import { sleep } from '../support/http';
import { v0, v0ok } from '../support/v0';
import { WebhookReceiver } from '../support/webhook-receiver';
import { spawnWorker } from '../support/worker-process';

const KINDS = ['job.created', 'job.transitioned', 'job.terminal'];

// Deliveries are pending (the receiver is down) when the worker that runs them, and an API that
// wrote their events, are killed with SIGKILL. Once a new worker runs and the receiver is back,
// every event of every job arrives, in order per job.
describe('webhooks through kill -9 of the worker and of the API', () => {
  const taskQueue = `webhook-crash-${Date.now()}`;
  let api: ServiceProcess;
  let worker: ManagedChild | undefined;
  let doomedApi: ManagedChild | undefined;
  let rx: WebhookReceiver;

  before(async function () {
    this.timeout(60_000);
    // The workers of this test alone relay and deliver: the suite's relay rests.
    testEnv().service.relay!.pause();
    api = await startServiceProcess({
      config: testEnv().configWith({ TEMPORAL_TASK_QUEUE: taskQueue }),
      log: quietLog,
      api: true,
      worker: false,
    });
    rx = await new WebhookReceiver().start();
  });
  after(async () => {
    await worker?.stop(2000);
    await doomedApi?.stop(2000);
    await api?.stop();
    await rx?.stop();
    testEnv().service.relay!.resume();
  });

  it('loses no event and keeps each job’s order', async function () {
    this.timeout(240_000);
    let down = true;
    rx.respond = () => ({ status: down ? 503 : 200 });
    const s = await login();
    const hook = await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url }, baseUrl: api.url });
    worker = await spawnWorker(taskQueue, 'webhook-worker-1');

    const jobs: string[] = [];
    const submitAndCancel = async (baseUrl: string, n: number) => {
      for (let i = 0; i < n; i++) {
        const job = await v0ok('POST', '/jobs', {
          token: s.token,
          body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
          baseUrl,
        });
        jobs.push(job.id);
        await v0ok('POST', `/jobs/${job.id}:cancel`, { token: s.token, status: 200, baseUrl });
      }
    };
    await submitAndCancel(api.url!, 10);
    // Attempts are under way and failing: the deliveries are pending on Temporal's retry timers.
    await rx.waitFor((all) => new Set(all.map((r) => r.event.id)).size >= 10, 30_000, 'first attempts');
    process.kill(-worker.pid, 'SIGKILL');
    assert.equal(await worker.exited, null, 'killed by the signal');
    worker = undefined;

    // With no worker, events keep being written; an API process writing them is killed outright.
    const port = await freePort();
    doomedApi = await spawnApi(port, { TEMPORAL_TASK_QUEUE: taskQueue });
    const doomedUrl = `http://127.0.0.1:${port}`;
    // Without a worker a cancel cannot be decided (503); submits are, and write their events.
    const later: string[] = [];
    for (let i = 0; i < 5; i++)
      later.push(
        (
          await v0ok('POST', '/jobs', {
            token: s.token,
            body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
            baseUrl: doomedUrl,
          })
        ).id,
      );
    const inFlight = Array.from({ length: 5 }, () =>
      v0('POST', '/jobs', {
        token: s.token,
        body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
        baseUrl: doomedUrl,
      }).catch(() => undefined),
    );
    await sleep(20);
    process.kill(doomedApi.pid, 'SIGKILL');
    await doomedApi.exited;
    doomedApi = undefined;
    later.push(...(await Promise.all(inFlight)).flatMap((r) => (r?.status === 201 ? [r.body.id as string] : [])));

    // The receiver is back and a new worker runs: everything pending arrives.
    down = false;
    const received = rx.received.length;
    worker = await spawnWorker(taskQueue, 'webhook-worker-2');
    for (const id of later) await v0ok('POST', `/jobs/${id}:cancel`, { token: s.token, status: 200, baseUrl: api.url });
    jobs.push(...later);
    // A job the killed API made visible without answering has its created event too: every
    // event written is waited for, whoever wrote it.
    const expected = async () =>
      (await testEnv()
        .db('webhook_events')
        .where({ workspace_id: s.user.workspaceId })
        .orderBy('seq')
        .select('id', 'job_id', 'type')) as Array<{ id: string; job_id: string; type: string }>;
    let events = await expected();
    await rx
      .waitFor(
        (all) => {
          const ok = new Set(all.filter((r) => r.answered === 200).map((r) => r.event.id));
          return events.every((e) => ok.has(e.id));
        },
        120_000,
        'every event after the restart',
      )
      .catch(async (err) => {
        events = await expected();
        throw err;
      });
    events = await expected();

    // Every job answered has its three events, and each job's first arrivals came in their order.
    for (const jobId of jobs) {
      const mine = events.filter((e) => e.job_id === jobId);
      assert.deepEqual(
        mine.map((e) => e.type),
        KINDS,
        `${jobId}: its events`,
      );
      // Every attempt at an event came after every attempt at the one before it.
      const arrivals = mine.map((e) => rx.received.flatMap((r, i) => (r.event.id === e.id ? [i] : [])));
      for (let k = 1; k < arrivals.length; k++) {
        assert.ok(
          arrivals[k].length > 0 && Math.min(...arrivals[k]) > Math.max(...arrivals[k - 1]),
          `${jobId}: ${mine[k].type} came after ${mine[k - 1].type}: ${JSON.stringify(arrivals)}`,
        );
      }
    }
    // The log shows each event delivered too: an attempt is logged once its answer is in, a
    // moment after the receiver answered it.
    const logged = async () =>
      new Set(
        (await testEnv()
          .db('webhook_deliveries')
          .where({ webhook_id: hook.id, status: 'succeeded' })
          .pluck('event_id')) as string[],
      );
    const deadline = Date.now() + 10_000;
    while ((await logged()).size < events.length && Date.now() < deadline) await sleep(50);
    assert.deepEqual(await logged(), new Set(events.map((e) => e.id)));
    const duplicates = rx.received.length - received - events.length;
    process.stderr.write(
      `      ${jobs.length} jobs, ${events.length} events; ${received} attempts before the restart, ${rx.received.length - received} after (${Math.max(0, duplicates)} beyond one per event)\n`,
    );
  });
});
