import assert from 'node:assert/strict';
import { Client, Connection } from '@temporalio/client';
import { type ServiceProcess, startServiceProcess } from '../src/runtime/service-process';
import { newId } from '../src/shared/ids';
import type { WebhookWorkflows } from '../src/temporal/webhook-workflow-client';
import { createWebhookRelay } from '../src/webhooks/relay';
import { login } from './support/auth';
import { quietLog, testEnv } from './support/env';
import { ok, pollOne, registerNode, resultOf, sleep } from './support/http';
import { verifyWithReference } from './support/reference-webhooks';
import { v0, v0ok } from './support/v0';
import { type Received, WebhookReceiver } from './support/webhook-receiver';

const signed = (r: Received) => ({ 'webhook-id': r.headers['webhook-id'], 'webhook-timestamp': r.headers['webhook-timestamp'], 'webhook-signature': r.headers['webhook-signature'] });
const auditActions = async (workspaceId: string) => (await testEnv().db('audit_log').where({ workspace_id: workspaceId }).orderBy('id').select('action')).map((r) => r.action);
/** The endpoint's delivery log, oldest first. */
async function deliveriesOf(token: string, hookId: string, baseUrl?: string) {
  const page = await v0ok('GET', `/webhooks/${hookId}/deliveries?pageSize=200`, { token, baseUrl });
  return [...page.items].reverse();
}
async function until<T>(what: string, get: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await sleep(50);
  }
}

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
    assert.deepEqual(Object.keys(hook).sort(), ['createdAt', 'description', 'disabledReason', 'enabled', 'events', 'id', 'previousSecretExpiresAt', 'secret', 'url']);
    assert.match(hook.id, /^whk_/);
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/=]+$/);
    assert.deepEqual([hook.events, hook.enabled, hook.url], [['job.created', 'job.transitioned', 'job.terminal'], true, rx.url]);

    const job = await v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo hi', labels: { team: 'hooks' } } });
    const node = await registerNode(s.token);
    const held = (await pollOne(node))!;
    assert.equal(held.job_id, job.id);
    await ok('/compute/nodes/result', resultOf(node, held, 0, 42), node.nodeKey);
    await rx.waitFor(() => rx.of(job.id).length >= 4);

    const got = rx.of(job.id);
    assert.deepEqual(got.map((r) => r.event.type), ['job.created', 'job.transitioned', 'job.transitioned', 'job.terminal']);
    assert.deepEqual(got.map((r) => [r.event.data.from, r.event.data.to]), [[undefined, undefined], ['QUEUED', 'RUNNING'], ['RUNNING', 'SUCCEEDED'], [undefined, undefined]]);
    assert.deepEqual(got.map((r) => r.event.data.job.state), ['QUEUED', 'RUNNING', 'SUCCEEDED', 'SUCCEEDED']);
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
      assert.deepEqual(await verifyWithReference({ secret: hook.secret, headers: signed(r), body: r.body }), { ok: true });
    }
    // A signature is over the exact bytes: the reference refuses a body changed by one character.
    const tampered = await verifyWithReference({ secret: hook.secret, headers: signed(got[0]), body: got[0].body.replace('QUEUED', 'QUEUEd') });
    assert.equal(tampered.ok, false);

    // An attempt is logged once its answer is in, a moment after the receiver answered.
    const log = await until('the attempts to be logged', () => deliveriesOf(s.token, hook.id), (l) => l.length === 4);
    assert.deepEqual(log.map((d) => [d.eventId, d.status, d.attempt, d.responseStatus, d.nextAttemptAt]), got.map((r) => [r.event.id, 'succeeded', 1, 204, null]));
    assert.deepEqual(Object.keys(log[0]).sort(), ['attempt', 'createdAt', 'durationMs', 'error', 'eventId', 'eventType', 'id', 'jobId', 'nextAttemptAt', 'redelivery', 'responseBody', 'responseStatus', 'status']);
    const listed = await v0ok('GET', '/webhooks', { token: s.token });
    assert.deepEqual(listed.items.map((h: { id: string }) => h.id), [hook.id]);
    assert.equal('secret' in listed.items[0], false);
    assert.ok((await auditActions(s.user.workspaceId)).includes('webhook.create'));
    // Exactly once on the happy path: nothing more arrives.
    await sleep(300);
    assert.equal(rx.of(job.id).length, 4);

    // In the Temporal UI: the endpoint's runs are found by its ID, and each names its URL.
    const connection = await Connection.connect({ address: testEnv().config.temporal.address! });
    try {
      const client = new Client({ connection });
      const lanes = await until('the lane to be listed', async () => {
        const found: string[] = [];
        for await (const wf of client.workflow.list({ query: `WebhookId="${hook.id}"` })) found.push(wf.workflowId);
        return found;
      }, (found) => found.length > 0);
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
    rx.respond = (_r, all) => (all.length <= 4 ? { status: 500, body: `overloaded ${'x'.repeat(10_000)}` } : { status: 200 });
    const hook = await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url, events: ['job.created'] } });
    const job = await v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } } });
    await rx.waitFor((all) => all.length >= 5, 60_000);
    assert.equal(new Set(rx.received.map((r) => r.headers['webhook-id'])).size, 1);
    assert.equal(rx.received[0].event.data.job.id, job.id);
    const gaps = rx.received.slice(1).map((r, i) => r.at - rx.received[i].at);
    // 1 s doubling up to 4 s, ±25%: each gap is longer than the one before.
    for (let i = 1; i < 3; i++) assert.ok(gaps[i] > gaps[i - 1], `gaps grow: ${gaps.join(', ')}`);

    const log = await until('the success to be logged', () => deliveriesOf(s.token, hook.id), (l) => l.length === 5);
    assert.deepEqual(log.map((d) => [d.attempt, d.status, d.responseStatus]), [[1, 'pending', 500], [2, 'pending', 500], [3, 'pending', 500], [4, 'pending', 500], [5, 'succeeded', 200]]);
    for (let i = 0; i < 4; i++) {
      assert.ok(log[i].nextAttemptAt, 'a pending attempt says when the next one is');
      // The next attempt came when the log said it would (it is logged once it has an answer).
      const drift = Date.parse(log[i + 1].createdAt) - log[i + 1].durationMs - Date.parse(log[i].nextAttemptAt);
      assert.ok(Math.abs(drift) < 500, `attempt ${i + 2} came ${drift} ms off its nextAttemptAt`);
      assert.match(log[i].error, /500/);
      // The receiver's answer is kept, cut at the configured size.
      assert.ok(log[i].responseBody.startsWith('overloaded') && Buffer.byteLength(log[i].responseBody) <= 2048, `body kept truncated: ${log[i].responseBody.length}`);
    }
    assert.equal(log[4].nextAttemptAt, null);
  });

  it('disables an endpoint whose receiver answers 410 and sends it nothing more; redelivery to it is 409', async function () {
    this.timeout(60_000);
    const s = await login();
    rx.respond = () => ({ status: 410 });
    const hook = await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url } });
    await v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } } });
    const off = await until('the endpoint to be disabled', () => v0ok('GET', `/webhooks/${hook.id}`, { token: s.token }), (h) => !h.enabled);
    assert.match(off.disabledReason, /410/);
    const [first] = await deliveriesOf(s.token, hook.id);
    assert.deepEqual([first.status, first.responseStatus, first.nextAttemptAt], ['failed', 410, null]);
    const job = await v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } } });
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
    await v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } } });
    await rx.waitFor((all) => all.length === 1);
    const [first] = await until('the delivery to be logged', () => deliveriesOf(s.token, hook.id), (l) => l.length === 1);
    const answer = await v0ok('POST', `/webhooks/${hook.id}/deliveries/${first.id}:redeliver`, { token: s.token, status: 202 });
    assert.deepEqual(answer, { webhookId: hook.id, eventId: first.eventId, redeliveryOf: first.id });
    await rx.waitFor((all) => all.length === 2);
    assert.equal(rx.received[1].headers['webhook-id'], rx.received[0].headers['webhook-id']);
    assert.equal(rx.received[1].body, rx.received[0].body);
    assert.deepEqual(await verifyWithReference({ secret: hook.secret, headers: signed(rx.received[1]), body: rx.received[1].body }), { ok: true });
    const log = await until('the redelivery to be logged', () => deliveriesOf(s.token, hook.id), (l) => l.length === 2);
    assert.deepEqual(log.map((d) => [d.eventId, d.attempt, d.status, d.redelivery]), [[first.eventId, 1, 'succeeded', false], [first.eventId, 2, 'succeeded', true]]);
    const unknown = await v0('POST', `/webhooks/${hook.id}/deliveries/dlv_00000000000000000000000000:redeliver`, { token: s.token });
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
    const job = await v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } } });
    await v0ok('POST', `/jobs/${job.id}:cancel`, { token: s.token, status: 200 });
    await sleep(1000);
    assert.equal(rx.received.length, 0);
    // A workspace without a live endpoint writes no events at all.
    assert.equal(Number((await testEnv().db('webhook_events').where({ job_id: job.id }).count({ n: '*' }))[0].n), 0);
    const actions = await auditActions(s.user.workspaceId);
    assert.deepEqual(actions.filter((a) => a.startsWith('webhook.')), ['webhook.create', 'webhook.rotate_secret', 'webhook.delete']);
  });

  it('removes events and attempts past the retention, and nothing newer or not yet relayed', async () => {
    const s = await login();
    const db = testEnv().db;
    const hook = await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url, events: ['job.terminal'] } });
    const event = (ageDays: number, relayed: boolean) => ({
      id: newId('evt'), workspace_id: s.user.workspaceId, job_id: 'job_retention', type: 'job.terminal', data: '{}', relayed,
      created_at: db.raw('now() - make_interval(days => ?)', [ageDays]),
    });
    const events = [event(31, true), event(31, false), event(29, true)];
    await db('webhook_events').insert(events);
    const attempt = (ageDays: number) => ({
      id: newId('dlv'), webhook_id: hook.id, event_id: events[0].id, event_seq: 0, job_id: 'job_retention', event_type: 'job.terminal',
      attempt: 1, status: 'failed', duration_ms: 1, created_at: db.raw('now() - make_interval(days => ?)', [ageDays]),
    });
    const attempts = [attempt(31), attempt(29)];
    await db('webhook_deliveries').insert(attempts);
    // The sweep touches only the database; the relay's Temporal side plays no part in it.
    const relay = createWebhookRelay({ db, workflows: {} as WebhookWorkflows, log: quietLog, retentionDays: 30 });
    assert.ok((await relay.sweep()) >= 2);
    const left = await db('webhook_events').whereIn('id', events.map((e) => e.id)).pluck('id');
    assert.deepEqual(left.sort(), [events[1].id, events[2].id].sort());
    assert.deepEqual(await db('webhook_deliveries').whereIn('id', attempts.map((a) => a.id)).pluck('id'), [attempts[1].id]);
  });

  it('refuses a URL that is not http(s) or points at a metadata address, naming the field', async () => {
    const s = await login();
    for (const url of ['ftp://example.com/hook', 'http://169.254.169.254/latest/meta-data', 'http://[fd00:ec2::254]/', 'http://user:pw@127.0.0.1/']) {
      const reply = await v0('POST', '/webhooks', { token: s.token, body: { url } });
      assert.equal(reply.status, 400, url);
      assert.equal(reply.body.code, 'request.invalid');
      assert.equal(reply.body.errors[0].path, 'url');
    }
    assert.equal((await v0ok('GET', '/webhooks', { token: s.token })).items.length, 0);
  });
});

describe('webhooks with shortened durations (a worker of their own)', () => {
  let own: ServiceProcess;
  let rx: WebhookReceiver;
  const resolved: Record<string, string> = { 'hooks.internal.test': '10.0.0.7' };

  before(async function () {
    this.timeout(60_000);
    // This worker (and its relay) alone delivers while the suite's relay rests.
    testEnv().service.relay!.pause();
    own = await startServiceProcess({
      config: testEnv().configWith({
        TEMPORAL_TASK_QUEUE: `webhooks-short-${Date.now()}`,
        WEBHOOK_RETRY_WINDOW_MS: '1500',
        WEBHOOK_TIMEOUT_MS: '500',
        WEBHOOK_SECRET_OVERLAP_MS: '1500',
      }),
      log: quietLog,
      api: true,
      worker: true,
      workflowBundle: testEnv().bundle,
      resolve: async (host) => (resolved[host] ? [{ address: resolved[host], family: 4 }] : [{ address: '127.0.0.1', family: 4 }]),
    });
  });
  after(async () => {
    await own?.stop();
    testEnv().service.relay!.resume();
  });
  beforeEach(async () => {
    rx = await new WebhookReceiver().start();
  });
  afterEach(() => rx.stop());
  const call = (method: string, path: string, opts: Parameters<typeof v0ok>[2] = {}) => v0ok(method, path, { ...opts, baseUrl: own.url });

  it('gives an event up after the retry window, then delivers the next of its job: order kept, nothing skipped', async function () {
    this.timeout(60_000);
    const s = await login();
    rx.respond = (r) => ({ status: r.event.type === 'job.created' ? 503 : 200 });
    const hook = await call('POST', '/webhooks', { token: s.token, body: { url: rx.url } });
    const job = await call('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } } });
    await call('POST', `/jobs/${job.id}:cancel`, { token: s.token, status: 200 });
    await rx.waitFor(() => rx.of(job.id).some((r) => r.event.type === 'job.terminal'));
    const got = rx.of(job.id);
    const created = got.filter((r) => r.event.type === 'job.created');
    assert.ok(created.length >= 3, `retried: ${created.length} attempts`);
    assert.ok(created[created.length - 1].at - created[0].at >= 1500, 'retried until the window had passed');
    assert.deepEqual(got.slice(created.length).map((r) => r.event.type), ['job.transitioned', 'job.terminal'], 'the rest came after, in order');
    const log = await until('the log to show all', () => deliveriesOf(s.token, hook.id, own.url), (l) => l.length === created.length + 2);
    const forCreated = log.filter((d) => d.eventType === 'job.created');
    assert.deepEqual(forCreated.map((d) => d.status), [...Array(created.length - 1).fill('pending'), 'failed']);
    assert.equal(forCreated[forCreated.length - 1].nextAttemptAt, null);
  });

  it('counts a receiver slower than the timeout as a failure, and retries it', async function () {
    this.timeout(60_000);
    const s = await login();
    rx.respond = (_r, all) => (all.length === 1 ? { status: 200, delayMs: 2000 } : { status: 200 });
    const hook = await call('POST', '/webhooks', { token: s.token, body: { url: rx.url, events: ['job.created'] } });
    await call('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } } });
    const log = await until('a retry to succeed', () => deliveriesOf(s.token, hook.id, own.url), (l) => l.some((d) => d.status === 'succeeded'));
    assert.equal(log[0].status, 'pending');
    assert.equal(log[0].responseStatus, null);
    assert.match(log[0].error, /timed out/);
    assert.ok(log[0].durationMs < 1500, `gave up at the timeout: ${log[0].durationMs} ms`);
    assert.equal(log[1].status, 'succeeded');
  });

  it('signs with both secrets during a rotation and only with the new one after it', async function () {
    this.timeout(120_000);
    const s = await login();
    const hook = await call('POST', '/webhooks', { token: s.token, body: { url: rx.url, events: ['job.created'] } });
    const rotated = await call('POST', `/webhooks/${hook.id}:rotate-secret`, { token: s.token, status: 200 });
    assert.notEqual(rotated.secret, hook.secret);
    const overlapEnds = Date.parse(rotated.previousSecretExpiresAt);
    assert.ok(overlapEnds > Date.now() && overlapEnds <= Date.now() + 1600, rotated.previousSecretExpiresAt);
    await call('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } } });
    await rx.waitFor((all) => all.length === 1);
    const during = rx.received[0];
    assert.equal(during.headers['webhook-signature'].split(' ').length, 2);
    for (const secret of [hook.secret, rotated.secret]) assert.deepEqual(await verifyWithReference({ secret, headers: signed(during), body: during.body }), { ok: true });

    await sleep(Math.max(0, overlapEnds - Date.now()) + 100);
    await call('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } } });
    await rx.waitFor((all) => all.length === 2);
    const after = rx.received[1];
    assert.equal(after.headers['webhook-signature'].split(' ').length, 1);
    assert.deepEqual(await verifyWithReference({ secret: rotated.secret, headers: signed(after), body: after.body }), { ok: true });
    assert.equal((await verifyWithReference({ secret: hook.secret, headers: signed(after), body: after.body })).ok, false);
    assert.equal((await call('GET', `/webhooks/${hook.id}`, { token: s.token })).previousSecretExpiresAt, null);
  });

  it('follows no redirect: a 302 towards a metadata address is a failed attempt and nothing else is asked', async function () {
    this.timeout(60_000);
    const s = await login();
    rx.respond = () => ({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } });
    const hook = await call('POST', '/webhooks', { token: s.token, body: { url: rx.url, events: ['job.created'] } });
    await call('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } } });
    const log = await until('the attempts to be given up', () => deliveriesOf(s.token, hook.id, own.url), (l) => l.some((d) => d.status === 'failed'));
    assert.ok(log.every((d) => d.responseStatus === 302 && /redirect/i.test(d.error)), JSON.stringify(log));
    assert.equal(rx.received.length, log.length, 'each attempt reached the receiver only');
  });

  it('refuses a hostname that resolves to a private address where private targets are not allowed', async function () {
    this.timeout(60_000);
    const s = await login();
    const strict = await startServiceProcess({
      config: testEnv().configWith({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }),
      log: quietLog,
      api: true,
      worker: false,
      resolve: async (host) => (resolved[host] ? [{ address: resolved[host], family: 4 }] : [{ address: '93.184.215.14', family: 4 }]),
    });
    try {
      for (const url of ['http://hooks.internal.test/hook', rx.url, 'http://[::1]:8080/', 'http://100.64.0.1/']) {
        const reply = await v0('POST', '/webhooks', { token: s.token, body: { url }, baseUrl: strict.url });
        assert.equal(reply.status, 400, `${url}: ${JSON.stringify(reply.body)}`);
        assert.equal(reply.body.errors[0].path, 'url');
      }
      // A public address passes.
      await v0ok('POST', '/webhooks', { token: s.token, body: { url: 'https://hooks.example.com/in' }, baseUrl: strict.url });
    } finally {
      await strict.stop();
    }
  });
});
