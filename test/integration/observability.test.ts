import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logging/logger';
import { startServiceProcess } from '../../src/runtime/service-process';
import { freePort } from '../../src/stack/ports';
import { presignUpload, send, sessionWithJob } from '../support/artifacts';
import { waitFor } from '../support/agents';
import { testEnv } from '../support/env';
import {
  heartbeatInBackground,
  inState,
  newWorkspace,
  ok,
  post,
  registerNode,
  submit,
  waitForJob,
} from '../support/http';
import { scrape, total } from '../support/metrics';
import { readLogStream } from '../support/sse';
import { apisPerTest } from '../support/api-process';
import { spawnWorker } from '../support/worker-process';

const get = async (url: string) => {
  const res = await fetch(url);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};

describe('health, readiness, metrics and request IDs', () => {
  const apiWith = apisPerTest();

  it('answers /healthz, and /readyz once PostgreSQL, the migrations, Temporal, object storage and the workers answer', async () => {
    assert.deepEqual((await get(`${testEnv().url}/healthz`)).body, { ok: true });
    const ready = await get(`${testEnv().url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, {
      ready: true,
      checks: { postgres: 'ok', migrations: 'ok', temporal: 'ok', objectStorage: 'ok', workers: 'ok' },
    });
  });

  it('is not ready, and says why, while object storage is unreachable or a migration is missing', async () => {
    const api = await apiWith({ S3_ENDPOINT: `http://127.0.0.1:${await freePort()}`, S3_TIMEOUT_MS: '500' });
    const down = await get(`${api.url}/readyz`);
    assert.equal(down.status, 503);
    assert.equal(down.body.ready, false);
    assert.notEqual(down.body.checks.objectStorage, 'ok');
    assert.equal(down.body.checks.postgres, 'ok');
    assert.equal(down.body.checks.temporal, 'ok');
    assert.equal((await get(`${api.url}/healthz`)).status, 200, 'alive all the same');

    const { db } = testEnv();
    const last = await db('knex_migrations').orderBy('id', 'desc').first();
    await db('knex_migrations').where({ id: last.id }).delete();
    try {
      const behind = await apiWith();
      const report = await get(`${behind.url}/readyz`);
      assert.equal(report.status, 503);
      assert.match(report.body.checks.migrations, new RegExp(`1 pending: ${last.name}`));
    } finally {
      await db('knex_migrations').insert(last);
    }
  });

  it('echoes X-Request-Id, puts it in error answers of both surfaces, and makes one when it is absent or unusable', async () => {
    const a = await post('/compute/jobs/retrieve', { job_id: 'job_nope' }, (await newWorkspace()).key);
    assert.equal(a.status, 404);
    assert.match(a.headers.get('x-request-id')!, /^[0-9a-f-]{36}$/);
    assert.equal(a.body.requestId, a.headers.get('x-request-id'));

    const b = await fetch(`${testEnv().url}/v0/jobs`, { headers: { 'X-Request-Id': 'deploy-42.check:1' } });
    assert.equal(b.status, 401);
    assert.equal(b.headers.get('x-request-id'), 'deploy-42.check:1');
    assert.equal(((await b.json()) as { requestId: string }).requestId, 'deploy-42.check:1');

    for (const unusable of ['has space', 'x'.repeat(129), 'quote"d']) {
      const res = await fetch(`${testEnv().url}/healthz`, { headers: { 'X-Request-Id': unusable } });
      assert.match(res.headers.get('x-request-id')!, /^[0-9a-f-]{36}$/, unusable);
    }
  });

  it("writes the request's ID on every log line written for it, down to the dependency that failed", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write: (chunk: Buffer, _e, done) => (lines.push(JSON.parse(chunk.toString())), done()),
    });
    const config = testEnv().configWith({
      LOG_LEVEL: 'debug',
      S3_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
      S3_TIMEOUT_MS: '500',
    });
    const api = await startServiceProcess({
      config,
      log: createLogger('debug', 'api', sink),
      api: true,
      worker: false,
    });
    try {
      const { token, jobId } = await sessionWithJob();
      const { url } = await presignUpload(token, jobId);
      const put = await send('PUT', url.replace(testEnv().url, api.url!), {
        body: Buffer.from('x'),
        headers: { 'X-Request-Id': 'upload-during-outage' },
      });
      assert.equal(put.status, 503);
      const mine = lines.filter((l) => l.requestId === 'upload-during-outage');
      assert.ok(
        mine.some((l) => l.msg === 'request'),
        'the access line',
      );
      assert.ok(
        mine.some((l) => l.level === 40 && /storage/i.test(String(l.msg))),
        `the outage warning: ${JSON.stringify(lines.slice(-5))}`,
      );
      // Nothing written during the request without it (startup lines precede it).
      const during = lines.slice(lines.indexOf(mine[0]));
      assert.deepEqual(
        during.filter((l) => !l.requestId).map((l) => l.msg),
        [],
      );
    } finally {
      await api.stop();
    }
  });

  it('moves the API series when a job runs: requests by route, dispatch latency, queue depth, polls waiting, SSE streams, log lines, artifact bytes, 429s, pool waits', async () => {
    const { url } = testEnv();
    const before = await scrape(url);
    const { key, workspaceId } = await newWorkspace();
    const node = await registerNode(key);
    // Four long polls wait (the per-credential cap), a fifth is refused.
    const polls = Array.from({ length: 4 }, () =>
      ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 3 }, node.nodeKey),
    );
    const waiting = await waitFor(
      'four polls waiting',
      async () => total(await scrape(url), 'compute_long_polls_waiting') >= 4 && true,
    );
    assert.ok(waiting);
    assert.equal(
      (await post('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 0 }, node.nodeKey)).status,
      429,
    );

    const sub = await submit(key);
    // The node heartbeats from its hand-out on, so the job is not requeued as lost meanwhile.
    const first = await Promise.any(polls.map((p) => p.then((r) => r.jobs[0] ?? Promise.reject(new Error('empty')))));
    const beat = heartbeatInBackground(node, [sub.job_id]);
    const handed = (await Promise.all(polls)).flatMap((p) => p.jobs);
    assert.deepEqual(handed, [first]);
    // The hand-out's row commits a moment after its answer (the claim's design): the gauge follows.
    const running = async () =>
      total(await scrape(url), 'compute_jobs', { workspace: workspaceId, state: 'RUNNING' }) === 1;
    assert.ok(await waitFor('the job counted RUNNING in its workspace', running, 5000));

    const stream = readLogStream(key, sub.job_id);
    await waitFor('the SSE stream open', async () => total(await scrape(url), 'compute_sse_streams_open') >= 1 && true);
    const lines = [1, 2, 3].map((seq) => ({
      seq,
      ts: new Date().toISOString(),
      stream: 'stdout',
      line: `line ${seq}`,
    }));
    await ok(
      '/compute/nodes/logs',
      { nodeId: node.nodeId, job_id: sub.job_id, leaseId: handed[0].leaseId, lines },
      node.nodeKey,
    );
    const put = await send('PUT', handed[0].artifactUploadUrl.replace('{id}', 'out'), { body: Buffer.alloc(1000, 1) });
    assert.equal(put.status, 200, put.body.toString());
    await ok(
      '/compute/nodes/result',
      { nodeId: node.nodeId, job_id: sub.job_id, leaseId: handed[0].leaseId, exitCode: 0, runtimeMs: 5 },
      node.nodeKey,
    );
    await waitForJob(key, sub.job_id, inState('succeeded'));
    await beat.stop();
    assert.equal((await stream).events.filter((e) => e.event === 'log').length, 3);

    const after = await scrape(url);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      total(after, name, labels) - total(before, name, labels);
    assert.ok(
      moved('compute_http_requests_total', { route: '/api/compute/jobs/submit', method: 'POST', status: '200' }) >= 1,
    );
    assert.ok(
      moved('compute_http_request_duration_seconds_count', { route: '/api/compute/nodes/poll', method: 'POST' }) >= 5,
    );
    assert.ok(moved('compute_rate_limit_refusals_total', { route: '/api/compute/nodes/poll' }) >= 1);
    assert.ok(moved('compute_dispatch_latency_seconds_count') >= 1);
    // Every statement the job's requests sent waited for a connection, if only for microseconds.
    assert.ok(moved('compute_db_pool_wait_seconds_count') >= 10);
    assert.ok(moved('compute_log_lines_ingested_total') >= 3);
    assert.ok(moved('compute_artifact_bytes_total', { direction: 'upload' }) >= 1000);
    assert.equal(total(after, 'compute_jobs', { workspace: workspaceId }), 0, 'nothing left open in the workspace');
    assert.equal(total(after, 'compute_sse_streams_open'), 0);
    // A path no route knows counts under one label, however many a scanner tries.
    await fetch(`${url}/no/such/${Date.now()}`);
    assert.ok(total(await scrape(url), 'compute_http_requests_total', { route: 'unmatched' }) >= 1);
  });

  it("serves the worker's health and metrics on its own port, the SDK's worker series included, and logs activities with their job", async () => {
    const taskQueue = `metrics-${Date.now()}`;
    const worker = await spawnWorker(taskQueue, 'metrics-worker', {
      TEMPORAL_METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'debug',
    });
    try {
      assert.deepEqual((await get(`${worker.url}/healthz`)).body, { ok: true });
      const ready = await get(`${worker.url}/readyz`);
      assert.equal(ready.status, 200, JSON.stringify(ready.body));
      assert.equal(ready.body.checks.workers, 'ok');
      const api = await apiWith({ TEMPORAL_TASK_QUEUE: taskQueue });
      const { key } = await newWorkspace();
      const node = await registerNode(key);
      // Through this API, whose jobs run on the worker's queue. The job times out on the worker's
      // durable timer, so the worker itself writes the transition (an activity).
      const sub = await ok(
        '/compute/jobs/submit',
        { type: 'COMMAND', command: 'sleep 60', timeoutSeconds: 1 },
        key,
        api.url,
      );
      const job = (await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 10 }, node.nodeKey, api.url))
        .jobs[0];
      assert.equal(job.job_id, sub.job_id);
      await waitForJob(key, sub.job_id, inState('timed-out'));

      // The row reads timed-out once the workflow has projected it; the run itself ends a moment later.
      const samples = await waitFor('the run to end on the worker', async () => {
        const now = await scrape(worker.url);
        return (
          now.some(
            (s) =>
              /^temporal_workflow_(completed|failed)$/.test(s.name) &&
              s.labels.task_queue === taskQueue &&
              s.value >= 1,
          ) && now
        );
      }).catch(() => scrape(worker.url));
      const sdk = samples.filter((s) => s.name.startsWith('temporal_'));
      assert.ok(sdk.length > 0, 'the SDK exporter is included');
      const names = JSON.stringify([...new Set(sdk.map((s) => s.name))]);
      const tasks = sdk.filter(
        (s) => /^temporal_workflow_task_execution_latency.*_count$/.test(s.name) && s.labels.task_queue === taskQueue,
      );
      assert.ok(tasks.reduce((n, s) => n + s.value, 0) >= 1, `workflow tasks counted: ${names}`);
      // A timed-out job's run ends failed.
      const runsEnded = sdk.filter(
        (s) => /^temporal_workflow_(completed|failed)$/.test(s.name) && s.labels.task_queue === taskQueue,
      );
      assert.ok(runsEnded.reduce((n, s) => n + s.value, 0) >= 1, `workflows ended: ${names}`);
      assert.ok(
        total(sdk, 'temporal_activity_execution_latency_count', { task_queue: taskQueue }) >= 1,
        'the transition activity ran here',
      );
      assert.ok(samples.some((s) => s.name === 'compute_process_resident_memory_bytes'));

      const logged = await waitFor('activity lines with the job', () => {
        const lines = fs
          .readFileSync(worker.logFile, 'utf8')
          .split('\n')
          .filter((l: string) => l.startsWith('{'))
          .map((l: string) => JSON.parse(l));
        const mine = lines.filter((l: { jobId?: string }) => l.jobId === sub.job_id);
        return mine.length > 0 && mine;
      });
      assert.ok(
        logged.every((l: { workflowId?: string; activity?: string }) => l.workflowId === sub.job_id && l.activity),
      );
    } finally {
      await worker.stop();
    }
  });
});
