// temporal: dev, server
import assert from 'node:assert/strict';
import { suiteClient } from '../support/temporal-client';
import { Connection } from '@temporalio/client';
import { startServiceProcess } from '../../src/runtime/service-process';
import { newId } from '../../src/shared/ids';
import type { WebhookWorkflows } from '../../src/temporal/webhook-workflow-client';
import { createWebhookRelay } from '../../src/webhooks/relay';
import { createSecretBox } from '../../src/webhooks/secret-box';
import { login } from '../support/auth';
import { quietLog, testEnv } from '../support/env';
import { ok, pollOne, registerNode, resultOf, sleep } from '../support/http';
import { verifyWithReference } from '../support/reference-webhooks';
import { v0, v0ok } from '../support/v0';
import { WebhookReceiver, deliveriesOf, signed, until } from '../support/webhook-receiver';

const auditActions = async (workspaceId: string) =>
  (await testEnv().db('audit_log').where({ workspace_id: workspaceId }).orderBy('id').select('action')).map(
    (r) => r.action,
  );

describe('webhooks', () => {
  let rx: WebhookReceiver;
  beforeEach(async () => {
    rx = await new WebhookReceiver().start();
  });
  afterEach(() => rx.stop());

  it("delivers a job's whole life in order, in Surface B's form, signed so the Python reference library verifies it", async function () {
    this.timeout(180_000);
    const s = await login();
    const hook = await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url, description: 'ci receiver' } });
    assert.deepEqual(Object.keys(hook).sort(), [
      'createdAt',
      'description',
      'disabledReason',
      'enabled',
      'events',
      'id',
      'previousSecretExpiresAt',
      'secret',
      'url',
    ]);
    assert.match(hook.id, /^wh_/);
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/=]+$/);
    assert.deepEqual(
      [hook.events, hook.enabled, hook.url],
      [['job.created', 'job.transitioned', 'job.terminal'], true, rx.url],
    );

    const job = await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo hi', labels: { team: 'hooks' } },
    });
    const node = await registerNode(s.token);
    const held = (await pollOne(node))!;
    assert.equal(held.job_id, job.id);
    await ok('/compute/nodes/result', resultOf(node, held, 0, 42), node.nodeKey);
    await rx.waitFor(() => rx.of(job.id).length >= 4);

    const got = rx.of(job.id);
    assert.deepEqual(
      got.map((r) => r.event.type),
      ['job.created', 'job.transitioned', 'job.transitioned', 'job.terminal'],
    );
    assert.deepEqual(
      got.map((r) => [r.event.data.from, r.event.data.to]),
      [
        [undefined, undefined],
        ['QUEUED', 'RUNNING'],
        ['RUNNING', 'SUCCEEDED'],
        [undefined, undefined],
      ],
    );
    assert.deepEqual(
      got.map((r) => r.event.data.job.state),
      ['QUEUED', 'RUNNING', 'SUCCEEDED', 'SUCCEEDED'],
    );
    // The job as of each event, in B's form: the terminal one is the job as GET /v0/jobs/{id} shows it.
    const final = await v0ok('GET', `/jobs/${job.id}`, { token: s.token });
    assert.deepEqual(got[3].event.data.job, final);
    assert.deepEqual(Object.keys(got[0].event.data.job).sort(), Object.keys(final).sort());
    assert.equal(got[1].event.data.job.agentId, node.nodeId);
    assert.equal(new Set(got.map((r) => r.event.id)).size, 4);
    for (const r of got) {
      assert.deepEqual(Object.keys(r.event).sort(), ['createdAt', 'data', 'id', 'type']);
      assert.match(r.event.id, /^evt_/);
      assert.equal(r.headers['webhook-id'], r.event.id);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.match(r.headers['webhook-signature'], /^v1,[A-Za-z0-9+/=]+$/);
      assert.deepEqual(await verifyWithReference({ secret: hook.secret, headers: signed(r), body: r.body }), {
        ok: true,
      });
    }
    // A signature is over the exact bytes: the reference refuses a body changed by one character.
    const tampered = await verifyWithReference({
      secret: hook.secret,
      headers: signed(got[0]),
      body: got[0].body.replace('QUEUED', 'QUEUEd'),
    });
    assert.equal(tampered.ok, false);

    // An attempt is logged once its answer is in, a moment after the receiver answered.
    const log = await until(
      'the attempts to be logged',
      () => deliveriesOf(s.token, hook.id),
      (l) => l.length === 4,
    );
    assert.deepEqual(
      log.map((d) => [d.eventId, d.status, d.attempt, d.responseStatus, d.nextAttemptAt]),
      got.map((r) => [r.event.id, 'succeeded', 1, 204, null]),
    );
    assert.deepEqual(Object.keys(log[0]).sort(), [
      'attempt',
      'createdAt',
      'durationMs',
      'error',
      'eventId',
      'eventType',
      'id',
      'jobId',
      'nextAttemptAt',
      'redelivery',
      'responseBody',
      'responseStatus',
      'status',
    ]);
    const listed = await v0ok('GET', '/webhooks', { token: s.token });
    assert.deepEqual(
      listed.items.map((h: { id: string }) => h.id),
      [hook.id],
    );
    assert.equal('secret' in listed.items[0], false);
    assert.ok((await auditActions(s.user.workspaceId)).includes('webhook.create'));
    // Exactly once on the happy path: nothing more arrives.
    await sleep(300);
    assert.equal(rx.of(job.id).length, 4);

    // In the Temporal UI: the endpoint's runs are found by its ID, and each names its URL.
    const connection = await Connection.connect({ address: testEnv().config.temporal.address! });
    try {
      const client = await suiteClient(connection);
      const lanes = await until(
        'the lane to be listed',
        async () => {
          const found: string[] = [];
          for await (const wf of client.workflow.list({ query: `WebhookId="${hook.id}"` })) found.push(wf.workflowId);
          return found;
        },
        (found) => found.length > 0,
      );
      // A lane closes when it finds nothing more and starts again at the next event: one ID, maybe several runs.
      assert.deepEqual([...new Set(lanes)], [`webhook-${hook.id}-${job.id}`]);
      const described = await client.workflow.getHandle(lanes[0]).describe();
      assert.equal(described.type, 'webhookLane');
      assert.equal(await described.staticSummary(), `Webhook events of ${job.id} to ${rx.url}`);
      assert.equal(((await client.workflow.getHandle(lanes[0]).result()) as { failed: number }).failed, 0);
    } finally {
      await connection.close();
    }
  });

  it('retries a failing receiver with growing gaps and the same webhook-id, logging each attempt with its next time, until it succeeds', async function () {
    this.timeout(90_000);
    const s = await login();
    rx.respond = (_r, all) =>
      all.length <= 4 ? { status: 500, body: `overloaded ${'x'.repeat(10_000)}` } : { status: 200 };
    const hook = await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url, events: ['job.created'] } });
    const job = await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
    });
    await rx.waitFor((all) => all.length >= 5, 60_000);
    assert.equal(new Set(rx.received.map((r) => r.headers['webhook-id'])).size, 1);
    assert.equal(rx.received[0].event.data.job.id, job.id);
    const gaps = rx.received.slice(1).map((r, i) => r.at - rx.received[i].at);
    // 1 s doubling up to 4 s, ±25%: each gap is longer than the one before.
    for (let i = 1; i < 3; i++) assert.ok(gaps[i] > gaps[i - 1], `gaps grow: ${gaps.join(', ')}`);

    const log = await until(
      'the success to be logged',
      () => deliveriesOf(s.token, hook.id),
      (l) => l.length === 5,
    );
    assert.deepEqual(
      log.map((d) => [d.attempt, d.status, d.responseStatus]),
      [
        [1, 'pending', 500],
        [2, 'pending', 500],
        [3, 'pending', 500],
        [4, 'pending', 500],
        [5, 'succeeded', 200],
      ],
    );
    for (let i = 0; i < 4; i++) {
      assert.ok(log[i].nextAttemptAt, 'a pending attempt says when the next one is');
      // The next attempt came when the log said it would (it is logged once it has an answer).
      const drift = Date.parse(log[i + 1].createdAt) - log[i + 1].durationMs - Date.parse(log[i].nextAttemptAt);
      assert.ok(Math.abs(drift) < 500, `attempt ${i + 2} came ${drift} ms off its nextAttemptAt`);
      assert.match(log[i].error, /500/);
      // The receiver's answer is kept, cut at the configured size.
      assert.ok(
        log[i].responseBody.startsWith('overloaded') && Buffer.byteLength(log[i].responseBody) <= 2048,
        `body kept truncated: ${log[i].responseBody.length}`,
      );
    }
    assert.equal(log[4].nextAttemptAt, null);
  });

  it('disables an endpoint whose receiver answers 410 and sends it nothing more; redelivery to it is 409', async function () {
    this.timeout(60_000);
    const s = await login();
    rx.respond = () => ({ status: 410 });
    const hook = await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url } });
    await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
    });
    const off = await until(
      'the endpoint to be disabled',
      () => v0ok('GET', `/webhooks/${hook.id}`, { token: s.token }),
      (h) => !h.enabled,
    );
    assert.match(off.disabledReason, /410/);
    const [first] = await deliveriesOf(s.token, hook.id);
    assert.deepEqual([first.status, first.responseStatus, first.nextAttemptAt], ['failed', 410, null]);
    const job = await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
    });
    await v0ok('POST', `/jobs/${job.id}:cancel`, { token: s.token, status: 200 });
    await sleep(1000);
    assert.equal(rx.received.length, 1, 'nothing after the 410');
    const again = await v0('POST', `/webhooks/${hook.id}/deliveries/${first.id}:redeliver`, { token: s.token });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'resource.conflict');
  });

  it('redelivers an event now with the same webhook-id, as a new logged attempt', async function () {
    this.timeout(60_000);
    const s = await login();
    const hook = await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url, events: ['job.created'] } });
    await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
    });
    await rx.waitFor((all) => all.length === 1);
    const [first] = await until(
      'the delivery to be logged',
      () => deliveriesOf(s.token, hook.id),
      (l) => l.length === 1,
    );
    const answer = await v0ok('POST', `/webhooks/${hook.id}/deliveries/${first.id}:redeliver`, {
      token: s.token,
      status: 202,
    });
    assert.deepEqual(answer, { webhookId: hook.id, eventId: first.eventId, redeliveryOf: first.id });
    await rx.waitFor((all) => all.length === 2);
    assert.equal(rx.received[1].headers['webhook-id'], rx.received[0].headers['webhook-id']);
    assert.equal(rx.received[1].body, rx.received[0].body);
    assert.deepEqual(
      await verifyWithReference({ secret: hook.secret, headers: signed(rx.received[1]), body: rx.received[1].body }),
      { ok: true },
    );
    const log = await until(
      'the redelivery to be logged',
      () => deliveriesOf(s.token, hook.id),
      (l) => l.length === 2,
    );
    assert.deepEqual(
      log.map((d) => [d.eventId, d.attempt, d.status, d.redelivery]),
      [
        [first.eventId, 1, 'succeeded', false],
        [first.eventId, 2, 'succeeded', true],
      ],
    );
    const unknown = await v0('POST', `/webhooks/${hook.id}/deliveries/dlv_00000000000000000000000000:redeliver`, {
      token: s.token,
    });
    assert.equal(unknown.status, 404);
  });

  it('sends nothing to a deleted endpoint, and audits create, rotate and delete', async function () {
    this.timeout(60_000);
    const s = await login();
    const hook = await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url } });
    await v0ok('POST', `/webhooks/${hook.id}:rotate-secret`, { token: s.token, status: 200 });
    await v0ok('DELETE', `/webhooks/${hook.id}`, { token: s.token, status: 204 });
    assert.equal((await v0('DELETE', `/webhooks/${hook.id}`, { token: s.token })).status, 404);
    assert.equal((await v0('GET', `/webhooks/${hook.id}`, { token: s.token })).status, 404);
    const job = await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
    });
    await v0ok('POST', `/jobs/${job.id}:cancel`, { token: s.token, status: 200 });
    await sleep(1000);
    assert.equal(rx.received.length, 0);
    // A workspace without a live endpoint writes no events at all.
    assert.equal(Number((await testEnv().db('webhook_events').where({ job_id: job.id }).count({ n: '*' }))[0].n), 0);
    const actions = await auditActions(s.user.workspaceId);
    assert.deepEqual(
      actions.filter((a) => a.startsWith('webhook.')),
      ['webhook.create', 'webhook.rotate_secret', 'webhook.delete'],
    );
  });

  it('keeps signing secrets sealed at rest: no whsec_ in the row after create or rotation, and both still sign', async function () {
    this.timeout(60_000);
    const s = await login();
    const db = testEnv().db;
    const rowOf = (id: string) => db('webhooks').where({ id }).first();
    /** The row's columns that hold a secret in clear (its `whsec_` prefix, or the part after it). */
    const clearIn = (row: Record<string, unknown>, ...secrets: string[]) =>
      Object.keys(row).filter((column) => {
        const text = JSON.stringify(row[column]) ?? '';
        return text.includes('whsec_') || secrets.some((secret) => text.includes(secret.slice('whsec_'.length)));
      });
    const hook = await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url, events: ['job.created'] } });
    const created = await rowOf(hook.id);
    assert.deepEqual(clearIn(created, hook.secret), []);
    assert.match(created.secret, /^v1:[0-9a-f]{8}:/);
    const rotated = await v0ok('POST', `/webhooks/${hook.id}:rotate-secret`, { token: s.token, status: 200 });
    const afterRotation = await rowOf(hook.id);
    assert.deepEqual(clearIn(afterRotation, hook.secret, rotated.secret), []);
    assert.match(afterRotation.secret, /^v1:[0-9a-f]{8}:/);
    assert.equal(afterRotation.previous_secret, created.secret, 'the previous secret moved as it was sealed');

    // The worker opens both: during the overlap each one's signature verifies.
    const job = await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
    });
    await rx.waitFor(() => rx.of(job.id).length === 1);
    const [delivered] = rx.of(job.id);
    assert.equal(delivered.headers['webhook-signature'].split(' ').length, 2);
    for (const secret of [rotated.secret, hook.secret])
      assert.deepEqual(await verifyWithReference({ secret, headers: signed(delivered), body: delivered.body }), {
        ok: true,
      });

    // A row an older version wrote in clear is sealed when an instance starts, to the same secrets.
    await db('webhooks').where({ id: hook.id }).update({ secret: rotated.secret, previous_secret: hook.secret });
    const api = await startServiceProcess({ config: testEnv().config, log: quietLog, api: true, worker: false });
    await api.stop();
    const resealed = await rowOf(hook.id);
    assert.deepEqual(clearIn(resealed, hook.secret, rotated.secret), []);
    const box = createSecretBox(testEnv().config.webhooks.secretKeys!);
    assert.deepEqual(
      [box.open(resealed.secret, hook.id), box.open(resealed.previous_secret, hook.id)],
      [rotated.secret, hook.secret],
    );
  });

  it('removes events and attempts past the retention, and nothing newer or not yet relayed', async () => {
    const s = await login();
    const db = testEnv().db;
    const hook = await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url, events: ['job.terminal'] } });
    const event = (ageDays: number, relayed: boolean) => ({
      id: newId('evt'),
      workspace_id: s.user.workspaceId,
      job_id: 'job_retention',
      type: 'job.terminal',
      data: '{}',
      relayed,
      created_at: db.raw('now() - make_interval(days => ?)', [ageDays]),
    });
    const events = [event(31, true), event(31, false), event(29, true)];
    // The suite's relay rests meanwhile: it would relay the unrelayed event (its workspace has a
    // webhook), and the sweep would then rightly take it.
    testEnv().service.relay!.pause();
    after(() => testEnv().service.relay!.resume());
    await db('webhook_events').insert(events);
    const attempt = (ageDays: number) => ({
      id: newId('dlv'),
      webhook_id: hook.id,
      event_id: events[0].id,
      event_seq: 0,
      job_id: 'job_retention',
      event_type: 'job.terminal',
      attempt: 1,
      status: 'failed',
      duration_ms: 1,
      created_at: db.raw('now() - make_interval(days => ?)', [ageDays]),
    });
    const attempts = [attempt(31), attempt(29)];
    await db('webhook_deliveries').insert(attempts);
    // The sweep touches only the database; the relay's Temporal side plays no part in it.
    const relay = createWebhookRelay({ db, workflows: {} as WebhookWorkflows, log: quietLog, retentionDays: 30 });
    assert.ok((await relay.sweep()) >= 2);
    const left = await db('webhook_events')
      .whereIn(
        'id',
        events.map((e) => e.id),
      )
      .pluck('id');
    assert.deepEqual(left.sort(), [events[1].id, events[2].id].sort());
    assert.deepEqual(
      await db('webhook_deliveries')
        .whereIn(
          'id',
          attempts.map((a) => a.id),
        )
        .pluck('id'),
      [attempts[1].id],
    );
  });

  it('refuses a URL that is not http(s) or points at a metadata address, naming the field', async () => {
    const s = await login();
    for (const url of [
      'ftp://example.com/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/',
      'http://user:pw@127.0.0.1/',
    ]) {
      const reply = await v0('POST', '/webhooks', { token: s.token, body: { url } });
      assert.equal(reply.status, 400, url);
      assert.equal(reply.body.code, 'request.invalid');
      assert.equal(reply.body.errors[0].path, 'url');
    }
    assert.equal((await v0ok('GET', '/webhooks', { token: s.token })).items.length, 0);
  });
});
