import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import stableStringify from 'safe-stable-stringify';
import { knowSuiteJob, suiteClient } from '../support/temporal-client';
import { suiteDataKeys } from '../support/data-keys';
import { Client, Connection, ServiceError } from '@temporalio/client';
import type { Principal } from '../../src/auth/principal';
import { ManifestSchema } from '../../src/jobs/schemas';
import { createJobsService } from '../../src/jobs/service';
import { silentAttempts } from '../../src/agents/liveness';
import { createTransitions } from '../../src/jobs/transitions';
import { createJobWorkflowClient, workflowIdOf } from '../../src/temporal/job-workflow-client';
import type { AppError } from '../../src/shared/errors';
import { apisPerTest, spawnApi } from '../support/api-process';
import { waitFor } from '../support/agents';
import { login } from '../support/auth';
import { quietLog, reconcileWorkspace, testEnv } from '../support/env';
import { pollOne, registerNode } from '../support/http';
import { freePort } from '../../src/stack/ports';
import { startTcpProxy } from '../support/tcp-proxy';
import { v0 } from '../support/v0';

const JOB = { type: 'COMMAND', command: 'echo once', labels: { run: 'idempotent' } };

describe('Idempotency-Key on POST /v0/jobs', () => {
  const apiWith = apisPerTest();
  let connection: Connection;
  let temporal: Client;
  before(async () => {
    connection = await Connection.connect({ address: testEnv().config.temporal.address! });
    temporal = await suiteClient(connection);
  });
  after(() => connection.close());

  const db = () => testEnv().db;
  const submitWith = (token: string, key: string, body: unknown = JOB, baseUrl?: string) =>
    v0('POST', '/jobs', { token, body, headers: { 'Idempotency-Key': key }, baseUrl });
  const jobsOf = (workspaceId: string) =>
    db()('jobs').where({ workspace_id: workspaceId }).select('id', 'workflow_started');
  const keyRow = (workspaceId: string, key: string) =>
    db()('idempotency_keys').where({ workspace_id: workspaceId, key }).first();
  /** Every run of the job's workflow Temporal has, open or closed. */
  const runsOf = async (jobId: string) => {
    const runs = [];
    for await (const run of temporal.workflow.list({ query: `WorkflowId = "${workflowIdOf(jobId)}"` }))
      runs.push(run.status.name);
    return runs;
  };

  it('keeps no plain hash of the body (env values included): the fingerprint is keyed, and a key kept before still replays', async () => {
    const s = await login();
    const body = { ...JOB, env: { DEPLOY_TOKEN: 'hunter2' } };
    const first = await submitWith(s.token, 'keyed-1', body);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const stored = (await keyRow(s.user.workspaceId, 'keyed-1')).fingerprint as string;
    // What a backup's reader could compute from a guess of the body, the env's secret included.
    const guess = createHash('sha256')
      .update(stableStringify(ManifestSchema.parse(body)))
      .digest('hex');
    assert.match(stored, /^v1:[A-Za-z0-9_-]{43}$/);
    assert.ok(!stored.includes(guess), 'a guess of the body cannot be checked against the row');
    const again = await submitWith(s.token, 'keyed-1', body);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');

    // A row kept with the plain hash (before keyed fingerprints) still matches its body until it expires.
    const legacy = await submitWith(s.token, 'legacy-1', body);
    await db()('idempotency_keys')
      .where({ workspace_id: s.user.workspaceId, key: 'legacy-1' })
      .update({ fingerprint: guess });
    const replayed = await submitWith(s.token, 'legacy-1', body);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replayed.body, legacy.body);
    assert.equal((await submitWith(s.token, 'legacy-1', { ...body, command: 'echo other' })).status, 422);
  });

  it('replays the first answer, refuses another body with 422, and keeps keys per workspace', async () => {
    const s = await login();
    const first = await submitWith(s.token, 'order-1');
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.headers.get('idempotent-replayed'), null);

    // The same manifest, its keys in another order and a default spelled out: the same request.
    const again = await submitWith(s.token, 'order-1', {
      labels: { run: 'idempotent' },
      command: 'echo once',
      type: 'COMMAND',
      timeoutSeconds: 3600,
    });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);

    const other = await submitWith(s.token, 'order-1', { ...JOB, command: 'echo twice' });
    assert.equal(other.status, 422);
    assert.equal(other.body.code, 'idempotency.mismatch');
    assert.match(other.headers.get('content-type')!, /application\/problem\+json/);
    assert.deepEqual(
      (await jobsOf(s.user.workspaceId)).map((j) => j.id),
      [first.body.id],
      'one job for the key',
    );

    // Another workspace's key of the same name is its own.
    const t = await login();
    const theirs = await submitWith(t.token, 'order-1');
    assert.equal(theirs.status, 201);
    assert.notEqual(theirs.body.id, first.body.id);
    assert.equal(theirs.headers.get('idempotent-replayed'), null);

    // Without a key every submit is a job of its own, as before.
    const plain = await Promise.all([1, 2].map(() => v0('POST', '/jobs', { token: s.token, body: JOB })));
    assert.deepEqual(
      plain.map((r) => r.status),
      [201, 201],
    );
    assert.equal((await jobsOf(s.user.workspaceId)).length, 3);
  });

  it('refuses a malformed key with 400 naming the header, and lets a key go when its request made no job', async () => {
    const s = await login();
    for (const bad of ['x'.repeat(256), 'two words']) {
      const reply = await submitWith(s.token, bad);
      assert.equal(reply.status, 400, bad);
      assert.equal(reply.body.code, 'request.invalid');
      assert.deepEqual(
        reply.body.errors.map((e: { path: string }) => e.path),
        ['Idempotency-Key'],
      );
    }
    // Refused by the service after the key was taken: nothing was made, so the key is free again.
    const refused = await submitWith(s.token, 'retry-me', { ...JOB, type: 'SQL' });
    assert.equal(refused.status, 400);
    assert.equal(await keyRow(s.user.workspaceId, 'retry-me'), undefined);
    const fixed = await submitWith(s.token, 'retry-me');
    assert.equal(fixed.status, 201, 'the corrected body is a new request, not a mismatch');
    assert.deepEqual(await jobsOf(s.user.workspaceId), [{ id: fixed.body.id, workflow_started: true }]);
  });

  it('forgets a key after 24 h: an expired key is a new request, and the sweep removes it', async () => {
    const s = await login();
    const ws = s.user.workspaceId;
    const first = await submitWith(s.token, 'daily');
    assert.equal(first.status, 201);
    const row = await keyRow(ws, 'daily');
    const hours = (Date.parse(row.expires_at) - Date.parse(row.created_at)) / 3_600_000;
    assert.ok(Math.abs(hours - 24) < 0.01, `kept for ${hours} h`);

    await db()('idempotency_keys')
      .where({ workspace_id: ws, key: 'daily' })
      .update({ expires_at: db().raw("now() - interval '1 second'") });
    const later = await submitWith(s.token, 'daily', { ...JOB, command: 'echo tomorrow' });
    assert.equal(later.status, 201, 'another body is fine once the key has expired');
    assert.notEqual(later.body.id, first.body.id);

    await db()('idempotency_keys')
      .where({ workspace_id: ws, key: 'daily' })
      .update({ expires_at: db().raw("now() - interval '1 second'") });
    assert.ok((await testEnv().service.services!.jobs.sweepIdempotencyKeys()) >= 1);
    assert.equal(await keyRow(ws, 'daily'), undefined);
    assert.equal((await jobsOf(ws)).length, 2, 'the jobs stay; only the key goes');
  });

  it('50 concurrent requests with one key through two API instances make exactly one job', async function () {
    this.timeout(60_000);
    const s = await login();
    const [a, b] = [await apiWith(), await apiWith()];
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => submitWith(s.token, 'burst', JOB, i % 2 ? a.url : b.url)),
    );
    const statuses = replies.map((r) => r.status);
    assert.ok(
      statuses.every((st) => st === 201 || st === 409),
      JSON.stringify(statuses),
    );
    assert.ok(replies.filter((r) => r.status === 409).every((r) => r.body.code === 'resource.conflict'));
    const created = replies.filter((r) => r.status === 201);
    console.log(
      `      50 requests, one key, two instances: ${created.length} answered 201 (${created.filter((r) => r.headers.get('idempotent-replayed')).length} of them replays), ${50 - created.length} 409`,
    );
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((r) => r.body.id)).size, 1, 'every 201 names the same job');
    const id = created[0].body.id;
    assert.deepEqual(await jobsOf(s.user.workspaceId), [{ id, workflow_started: true }]);
    assert.deepEqual(await runsOf(id), ['RUNNING'], 'one run');
    const replay = await submitWith(s.token, 'burst', JOB, a.url);
    assert.deepEqual([replay.status, replay.body.id, replay.headers.get('idempotent-replayed')], [201, id, 'true']);
  });

  it('kill -9 of the API between the key and the start: 409 while it holds the key, then a retry makes that same one job', async function () {
    this.timeout(90_000);
    const s = await login();
    const ws = s.user.workspaceId;
    const [host, port] = testEnv().config.temporal.address!.split(':');
    const proxy = await startTcpProxy({ host, port: Number(port) });
    const apiPort = await freePort();
    const api = await spawnApi(apiPort, { TEMPORAL_ADDRESS: proxy.address, IDEMPOTENCY_HOLD_MS: '3000' });
    try {
      // Temporal hangs for this instance: its submit records the key and the row, then waits on the start.
      proxy.blackhole();
      void submitWith(s.token, 'crash', JOB, `http://127.0.0.1:${apiPort}`).catch(() => undefined);
      const held = await waitFor('the key and the row to be recorded', async () => {
        const row = await keyRow(ws, 'crash');
        return row && (await jobsOf(ws)).length === 1 ? row : undefined;
      });
      const busy = await submitWith(s.token, 'crash');
      assert.deepEqual(
        [busy.status, busy.body.code, busy.body.details?.reason],
        [409, 'resource.conflict', 'idempotency_key_in_use'],
      );
      assert.equal(
        (await submitWith(s.token, 'crash', { ...JOB, command: 'echo other' })).status,
        422,
        'a mismatch is told at once',
      );

      process.kill(-api.pid, 'SIGKILL');
      await api.exited;
      proxy.resume();
      assert.deepEqual(
        await jobsOf(ws),
        [{ id: held.job_id, workflow_started: false }],
        'the crash left an unacknowledged row',
      );
      assert.deepEqual(await runsOf(held.job_id), [], 'and no run');

      // Once the dead instance's hold has passed, a retry carries the request out for the key's job.
      const done = await waitFor('a retry to take the key over', async () => {
        const reply = await submitWith(s.token, 'crash');
        return reply.status === 409 ? undefined : reply;
      });
      assert.deepEqual([done.status, done.body.id, done.headers.get('idempotent-replayed')], [201, held.job_id, null]);
      assert.deepEqual(await jobsOf(ws), [{ id: held.job_id, workflow_started: true }]);
      assert.deepEqual(await runsOf(held.job_id), ['RUNNING']);
      // The reconciler finds nothing left to settle, and the job runs once.
      await reconcileWorkspace(ws);
      const node = await registerNode(s.token);
      assert.equal((await pollOne(node, 2))?.job_id, held.job_id);
      assert.equal(await pollOne(node, 0), undefined, 'no second copy');
      const replay = await submitWith(s.token, 'crash');
      assert.deepEqual(
        [replay.status, replay.body.id, replay.headers.get('idempotent-replayed')],
        [201, held.job_id, 'true'],
      );
    } finally {
      await api.stop(0); // when the test failed before its kill

      await proxy.close();
    }
  });

  it('a crash after the start was applied and before the answer: the retry finds the run and starts no second', async () => {
    const s = await login();
    const ws = s.user.workspaceId;
    const principal: Principal = {
      workspaceId: ws,
      kind: 'user',
      credential: 'jwt',
      role: 'owner',
      actor: { type: 'user', id: s.user.id },
      rateSubject: `ws:${ws}`,
      credentialId: s.user.id,
    };
    // The real Temporal client, whose start is applied and then answered with a deadline error.
    const workflow = Object.create(temporal.workflow, {
      start: {
        value: async (...args: Parameters<Client['workflow']['start']>) => {
          await temporal.workflow.start(...args);
          throw new ServiceError('deadline exceeded', {
            cause: Object.assign(new Error('deadline exceeded'), { code: 4 }),
          });
        },
      },
    });
    const { config } = testEnv();
    const workflows = createJobWorkflowClient(Object.create(temporal, { workflow: { value: workflow } }) as Client, {
      taskQueue: config.temporal.taskQueue,
      retryAfterSeconds: 1,
      eager: false,
      knowJob: knowSuiteJob,
    });
    const shortHold = { ...config, durations: { ...config.durations, idempotencyHoldMs: 200 } };
    const jobs = createJobsService({
      db: db(),
      dataKeys: await suiteDataKeys(),
      workflows,
      transitions: createTransitions({ db: db(), workflows, config, log: quietLog, silentAttempts }),
      config: shortHold,
      log: quietLog,
    });
    const manifest = ManifestSchema.parse(JOB);
    await assert.rejects(
      jobs.submitWithKey(principal, manifest, 'applied', (j) => j.id),
      (e: AppError) => e.code === 'dependency.unavailable',
    );
    const { job_id: jobId } = await keyRow(ws, 'applied');
    // Listing reads Temporal's visibility store, which indexes a started run a moment later.
    const listed = await waitFor(
      'the run listed',
      async () => {
        const runs = await runsOf(jobId);
        return runs.length ? runs : undefined;
      },
      10_000,
    );
    assert.deepEqual(listed, ['RUNNING'], 'the run exists');
    assert.deepEqual(await jobsOf(ws), [{ id: jobId, workflow_started: false }], 'its row is not acknowledged yet');

    const done = await waitFor('the hold to pass', async () => {
      const reply = await submitWith(s.token, 'applied');
      return reply.status === 409 ? undefined : reply;
    });
    assert.deepEqual([done.status, done.body.id], [201, jobId]);
    assert.deepEqual(await jobsOf(ws), [{ id: jobId, workflow_started: true }]);
    assert.deepEqual(await runsOf(jobId), ['RUNNING'], 'still the one run');
    const submits = await db()('audit_log').where({ workspace_id: ws, action: 'job.submit' }).pluck('target_id');
    assert.deepEqual(submits, [jobId], 'one submit in the audit log');
  });
});
