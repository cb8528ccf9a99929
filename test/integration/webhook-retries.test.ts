// temporal: dev, server
import assert from 'node:assert/strict';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { login } from '../support/auth';
import { quietLog, testEnv } from '../support/env';
import { sleep } from '../support/http';
import { verifyWithReference } from '../support/reference-webhooks';
import { v0, v0ok } from '../support/v0';
import { WebhookReceiver, deliveriesOf, signed, until } from '../support/webhook-receiver';

// Retry windows, timeouts and rotations in seconds: a worker (and relay) of their own with
// shortened durations, and API instances with other target policies.
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
        // Retries at about 0.2, 0.6 and 1.4 s: two fall inside the window with a second to spare
        // for a loaded machine's scheduling, and the one after it gives up.
        WEBHOOK_FIRST_RETRY_MS: '200',
        WEBHOOK_TIMEOUT_MS: '500',
        WEBHOOK_SECRET_OVERLAP_MS: '1500',
      }),
      log: quietLog,
      api: true,
      worker: true,
      workflowBundle: testEnv().bundle,
      resolve: async (host) =>
        resolved[host] ? [{ address: resolved[host], family: 4 }] : [{ address: '127.0.0.1', family: 4 }],
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
  const call = (method: string, path: string, opts: Parameters<typeof v0ok>[2] = {}) =>
    v0ok(method, path, { ...opts, baseUrl: own.url });

  it('gives an event up after the retry window, then delivers the next of its job: order kept, nothing skipped', async function () {
    this.timeout(60_000);
    const s = await login();
    rx.respond = (r) => ({ status: r.event.type === 'job.created' ? 503 : 200 });
    const hook = await call('POST', '/webhooks', { token: s.token, body: { url: rx.url } });
    const job = await call('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
    });
    await call('POST', `/jobs/${job.id}:cancel`, { token: s.token, status: 200 });
    await rx.waitFor(() => rx.of(job.id).some((r) => r.event.type === 'job.terminal'));
    const got = rx.of(job.id);
    const created = got.filter((r) => r.event.type === 'job.created');
    // How many attempts fit in the window depends on how fast each one is answered and scheduled.
    assert.ok(created.length >= 2, `retried: ${created.length} attempts`);
    // The window runs from when the lane scheduled the first attempt, which reaches the receiver
    // some time later (hundreds of ms on a loaded server), and is checked once an attempt's answer
    // is in: so the last arrival is at least one retry delay (WEBHOOK_FIRST_RETRY_MS, 1 s here)
    // after the first, and the log below shows every earlier attempt pending and the last failed.
    assert.ok(
      created[created.length - 1].at - created[0].at >= 900,
      `retried after its delay: ${created.map((c) => c.at - created[0].at).join(', ')} ms`,
    );
    assert.deepEqual(
      got.slice(created.length).map((r) => r.event.type),
      ['job.transitioned', 'job.terminal'],
      'the rest came after, in order',
    );
    const log = await until(
      'the log to show all',
      () => deliveriesOf(s.token, hook.id, own.url),
      (l) => l.length === created.length + 2,
    );
    const forCreated = log.filter((d) => d.eventType === 'job.created');
    assert.deepEqual(
      forCreated.map((d) => d.status),
      [...Array(created.length - 1).fill('pending'), 'failed'],
    );
    assert.equal(forCreated[forCreated.length - 1].nextAttemptAt, null);
  });

  it('counts a receiver slower than the timeout as a failure, and retries it', async function () {
    this.timeout(60_000);
    const s = await login();
    rx.respond = (_r, all) => (all.length === 1 ? { status: 200, delayMs: 2000 } : { status: 200 });
    const hook = await call('POST', '/webhooks', { token: s.token, body: { url: rx.url, events: ['job.created'] } });
    await call('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
    });
    const log = await until(
      'a retry to succeed',
      () => deliveriesOf(s.token, hook.id, own.url),
      (l) => l.some((d) => d.status === 'succeeded'),
    );
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
    await call('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
    });
    await rx.waitFor((all) => all.length === 1);
    const during = rx.received[0];
    assert.equal(during.headers['webhook-signature'].split(' ').length, 2);
    for (const secret of [hook.secret, rotated.secret])
      assert.deepEqual(await verifyWithReference({ secret, headers: signed(during), body: during.body }), { ok: true });

    await sleep(Math.max(0, overlapEnds - Date.now()) + 100);
    await call('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
    });
    await rx.waitFor((all) => all.length === 2);
    const after = rx.received[1];
    assert.equal(after.headers['webhook-signature'].split(' ').length, 1);
    assert.deepEqual(await verifyWithReference({ secret: rotated.secret, headers: signed(after), body: after.body }), {
      ok: true,
    });
    assert.equal(
      (await verifyWithReference({ secret: hook.secret, headers: signed(after), body: after.body })).ok,
      false,
    );
    assert.equal((await call('GET', `/webhooks/${hook.id}`, { token: s.token })).previousSecretExpiresAt, null);
  });

  it('follows no redirect: a 302 towards a metadata address is a failed attempt and nothing else is asked', async function () {
    this.timeout(60_000);
    const s = await login();
    rx.respond = () => ({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } });
    const hook = await call('POST', '/webhooks', { token: s.token, body: { url: rx.url, events: ['job.created'] } });
    await call('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
    });
    const log = await until(
      'the attempts to be given up',
      () => deliveriesOf(s.token, hook.id, own.url),
      (l) => l.some((d) => d.status === 'failed'),
    );
    assert.ok(
      log.every((d) => d.responseStatus === 302 && /redirect/i.test(d.error)),
      JSON.stringify(log),
    );
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
      resolve: async (host) =>
        resolved[host] ? [{ address: resolved[host], family: 4 }] : [{ address: '93.184.215.14', family: 4 }],
    });
    try {
      for (const url of ['http://hooks.internal.test/hook', rx.url, 'http://[::1]:8080/', 'http://100.64.0.1/']) {
        const reply = await v0('POST', '/webhooks', { token: s.token, body: { url }, baseUrl: strict.url });
        assert.equal(reply.status, 400, `${url}: ${JSON.stringify(reply.body)}`);
        assert.equal(reply.body.errors[0].path, 'url');
      }
      // A public address passes.
      await v0ok('POST', '/webhooks', {
        token: s.token,
        body: { url: 'https://hooks.example.com/in' },
        baseUrl: strict.url,
      });
    } finally {
      await strict.stop();
    }
  });
});
