import assert from 'node:assert/strict';
import path from 'node:path';
import { createApiKey } from '../../src/auth/api-keys';
import { createWorkspace } from '../../src/workspaces/rows';
import { createDb } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrate';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { freePort } from '../../src/stack/ports';
import { type RunningPostgres, startPostgres } from '../../src/stack/postgres';
import { startTemporalDevServer } from '../../src/stack/temporal-server';
import { ensureTool } from '../../src/stack/tools';
import { quietLog, testEnv } from '../support/env';
import {
  type Reply,
  heartbeatInBackground,
  newWorkspace,
  ok,
  post,
  registerNode,
  resultOf,
  sleep,
} from '../support/http';
import { readLogStream } from '../support/sse';
import { startTcpProxy } from '../support/tcp-proxy';

function assertUnavailable(
  reply: Reply,
  what: string,
  retryAfterSeconds = testEnv().config.dependencyRetryAfterSeconds,
) {
  assert.equal(reply.status, 503, `${what}: ${JSON.stringify(reply.body)}`);
  assert.equal(reply.body.code, 'dependency.unavailable');
  assert.equal(reply.headers.get('retry-after'), String(retryAfterSeconds));
  assert.ok(!JSON.stringify(reply.body).includes(' at '), 'no stack trace');
}

// Each outage gets its own server to kill, and its own API process in front of it.
describe('a dependency outage', () => {
  it('answers 503 with Retry-After while Temporal is down, and acknowledges nothing it cannot run', async () => {
    const temporal = await startTemporalDevServer({
      binary: await ensureTool('temporal', testEnv().config.toolsDir),
      port: await freePort(),
      headless: true,
      logFile: path.join(testEnv().dataDir, 'logs', 'outage-temporal.log'),
    });
    let api: ServiceProcess | undefined;
    try {
      api = await startServiceProcess({
        config: testEnv().configWith({ TEMPORAL_ADDRESS: temporal.address }),
        log: quietLog,
        api: true,
        worker: false,
      });
      const url = api.url!;
      const { key, workspaceId } = await newWorkspace();
      const before = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo before' }, key, url);
      await temporal.stop();

      assertUnavailable(
        await post('/compute/jobs/submit', { type: 'COMMAND', command: 'echo during' }, key, url),
        'submit',
      );
      assertUnavailable(await post('/compute/jobs/cancel', { job_id: before.job_id }, key, url), 'cancel');
      const listed = await ok('/compute/jobs/list', {}, key, url);
      assert.deepEqual(
        listed.jobs.map((j: { job_id: string }) => j.job_id),
        [before.job_id],
        'the refused submit left nothing visible',
      );
      // Raw rows: jobs/list hides rows whose workflow was never confirmed.
      const rows = await testEnv().db('jobs').where({ workspace_id: workspaceId }).pluck('id');
      assert.deepEqual(rows, [before.job_id], 'the refused submit left no row behind either');
      assert.equal(
        (await ok('/compute/jobs/retrieve', { job_id: before.job_id }, key, url)).state,
        'queued',
        'reads still work',
      );
    } finally {
      await temporal.stop();
      await api?.stop();
    }
  });

  it('gives up on a Temporal that hangs after 10 s, then fails fast until Retry-After, serves reads and logs meanwhile, and recovers', async function () {
    this.timeout(90_000);
    const [host, port] = testEnv().config.temporal.address!.split(':') as [string, string];
    const proxy = await startTcpProxy({ host, port: Number(port) });
    let api: ServiceProcess | undefined;
    let beating: ReturnType<typeof heartbeatInBackground> | undefined;
    try {
      const retryAfter = 2;
      const config = testEnv().configWith({
        TEMPORAL_ADDRESS: proxy.address,
        DEPENDENCY_RETRY_AFTER_SECONDS: String(retryAfter),
      });
      api = await startServiceProcess({ config, log: quietLog, api: true, worker: false });
      const url = api.url!;
      const { key, workspaceId } = await newWorkspace();
      const node = await registerNode(key);
      const running = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo running' }, key, url);
      const held = (await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 5 }, node.nodeKey, url))
        .jobs[0];
      assert.equal(held.job_id, running.job_id);
      // A live agent, to the workflow (its worker reaches Temporal directly): the job stays held.
      beating = heartbeatInBackground(node, [held.job_id]);
      const push = (from: number, count: number) =>
        post(
          '/compute/nodes/logs',
          {
            nodeId: node.nodeId,
            job_id: held.job_id,
            leaseId: held.leaseId,
            lines: Array.from({ length: count }, (_, i) => ({
              seq: from + i,
              stream: 'stdout',
              line: `line ${from + i}`,
            })),
          },
          node.nodeKey,
          url,
        );
      assert.equal((await push(1, 3)).status, 200);
      const queued = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo queued' }, key, url);

      proxy.blackhole();
      let started = Date.now();
      assertUnavailable(
        await post('/compute/jobs/cancel', { job_id: queued.job_id }, key, url),
        'cancel on a hung Temporal',
        retryAfter,
      );
      const gaveUpAfter = Date.now() - started;
      assert.ok(gaveUpAfter >= 9_500 && gaveUpAfter < 14_000, `gave up after ${gaveUpAfter} ms, not about 10 s`);

      started = Date.now();
      assertUnavailable(
        await post('/compute/jobs/submit', { type: 'COMMAND', command: 'echo during' }, key, url),
        'submit after the give-up',
        retryAfter,
      );
      assertUnavailable(
        await post('/compute/jobs/cancel', { job_id: queued.job_id }, key, url),
        'cancel after the give-up',
        retryAfter,
      );
      const failedIn = Date.now() - started;
      assert.ok(failedIn < 1_000, `calls failed fast, not after ${failedIn} ms`);
      const rows = await testEnv().db('jobs').where({ workspace_id: workspaceId }).orderBy('id').pluck('id');
      assert.deepEqual(rows, [running.job_id, queued.job_id].sort(), 'the refused submit left no row');

      // What PostgreSQL holds stays readable, and the agent's log lines still land.
      assert.equal((await ok('/compute/jobs/retrieve', { job_id: queued.job_id }, key, url)).state, 'queued');
      assert.equal((await ok('/compute/jobs/list', {}, key, url)).jobs.length, 2);
      const late = await push(4, 2);
      assert.equal(late.status, 200, `a log push needs no Temporal: ${JSON.stringify(late.body)}`);
      const stream = await readLogStream(key, held.job_id, { baseUrl: url, stopAfter: 5 });
      assert.equal(stream.status, 200);
      assert.deepEqual(
        stream.events.map((e) => e.data.line),
        ['line 1', 'line 2', 'line 3', 'line 4', 'line 5'],
      );

      proxy.resume();
      const since = Date.now() - started;
      if (since < retryAfter * 1000) await sleep(retryAfter * 1000 - since); // the Retry-After the client was given
      const cancelled = await ok('/compute/jobs/cancel', { job_id: queued.job_id }, key, url);
      assert.equal(cancelled.state, 'cancelled', 'Temporal answers again once the Retry-After passed');
      assert.equal(
        (await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo after' }, key, url)).state,
        'queued',
      );
      assert.deepEqual((await beating.stop()).flat(), [], 'the held job was never given up');
    } finally {
      await beating?.stop();
      await api?.stop();
      await proxy.close();
    }
  });

  it('answers 503 with Retry-After while PostgreSQL is down, and keeps what it acknowledged', async () => {
    const dataDir = path.join(testEnv().dataDir, 'outage-postgres');
    const port = await freePort();
    let pg: RunningPostgres | undefined = await startPostgres({ dataDir, port });
    let api: ServiceProcess | undefined;
    try {
      const db = createDb(pg.url);
      await migrateLatest(db);
      const workspaceId = await createWorkspace(db, 'outage');
      const { key } = await createApiKey(db, { workspaceId, name: 'outage', kind: 'user' });
      await db.destroy();
      // Its own task queue and worker, so the job's projections land in this database.
      const config = testEnv().configWith({ DATABASE_URL: pg.url, TEMPORAL_TASK_QUEUE: `outage-${Date.now()}` });
      api = await startServiceProcess({
        config,
        log: quietLog,
        api: true,
        worker: true,
        workflowBundle: testEnv().bundle,
      });
      const url = api.url!;
      const acked = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo kept' }, key, url);
      const reg = await ok('/compute/nodes/register', { name: 'n', labels: {} }, key, url);
      const node = { nodeId: reg.nodeId as string, nodeKey: reg.apiKey as string };

      await pg.stop();
      pg = undefined;
      assertUnavailable(
        await post('/compute/jobs/submit', { type: 'COMMAND', command: 'echo during' }, key, url),
        'submit',
      );
      assertUnavailable(await post('/compute/jobs/retrieve', { job_id: acked.job_id }, key, url), 'retrieve');
      assertUnavailable(
        await post('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 0 }, node.nodeKey, url),
        'poll',
      );

      pg = await startPostgres({ dataDir, port });
      const polled = await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 5 }, node.nodeKey, url);
      assert.deepEqual(
        polled.jobs.map((j: { job_id: string }) => j.job_id),
        [acked.job_id],
        'the acknowledged job survived the outage',
      );
      const done = await ok('/compute/nodes/result', resultOf(node, polled.jobs[0], 0), node.nodeKey, url);
      assert.equal(done.state, 'succeeded');
      const listed = await ok('/compute/jobs/list', {}, key, url);
      assert.equal(listed.jobs.length, 1, 'the refused submit left nothing visible');
      const check = createDb(pg.url);
      try {
        assert.deepEqual(
          await check('jobs').pluck('id'),
          [acked.job_id],
          'the refused submit left no row behind either',
        );
      } finally {
        await check.destroy();
      }
    } finally {
      await api?.stop();
      await pg?.stop();
    }
  });
});
