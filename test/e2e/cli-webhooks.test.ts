import assert from 'node:assert/strict';
import { createSecretBox } from '../../src/webhooks/secret-box';
import { cliUser, startCompute } from '../support/cli';
import { testEnv } from '../support/env';
import { verifyWithReference } from '../support/reference-webhooks';
import { v0ok } from '../support/v0';
import { WebhookReceiver } from '../support/webhook-receiver';

const queuedJob = (token: string) =>
  v0ok('POST', '/jobs', { token, body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } } });

describe('compute webhooks', () => {
  let rx: WebhookReceiver;
  beforeEach(async () => {
    rx = await new WebhookReceiver().start();
  });
  afterEach(() => rx.stop());

  it('creates, lists, rotates, shows deliveries, redelivers and deletes', async function () {
    this.timeout(180_000);
    const me = await cliUser();
    const created = await me.succeed(
      'webhooks',
      'create',
      rx.url,
      '--events',
      'job.created,job.terminal',
      '--description',
      'from the CLI',
    );
    const secret = created.stdout.trim();
    assert.match(secret, /^whsec_/);
    assert.match(created.stderr, /created wh_\w+ → /);
    const [hook] = JSON.parse((await me.succeed('webhooks', 'list', '--json')).stdout) as Array<{
      id: string;
      events: string[];
      description: string;
    }>;
    assert.deepEqual([hook.events, hook.description], [['job.created', 'job.terminal'], 'from the CLI']);
    assert.match(
      (await me.succeed('webhooks', 'list')).stdout,
      new RegExp(`^${hook.id}\\s+${rx.url.replace(/[/.]/g, '\\$&')}\\s+job.created,job.terminal\\s+yes`, 'm'),
    );

    await queuedJob(me.session.token);
    await rx.waitFor((all) => all.length === 1);
    assert.deepEqual(
      await verifyWithReference({ secret, headers: rx.received[0].headers, body: rx.received[0].body }),
      { ok: true },
    );
    const deliveries = JSON.parse((await me.succeed('webhooks', 'deliveries', hook.id, '--json')).stdout) as Array<{
      id: string;
      eventId: string;
      status: string;
    }>;
    assert.deepEqual(
      deliveries.map((d) => [d.eventId, d.status]),
      [[rx.received[0].event.id, 'succeeded']],
    );
    assert.match((await me.succeed('webhooks', 'deliveries', hook.id)).stdout, /^ID\s+EVENT\s+TYPE\s+ATTEMPT\s+STATUS/);

    const redelivered = await me.succeed('webhooks', 'redeliver', hook.id, deliveries[0].id);
    assert.match(redelivered.stderr, new RegExp(`redelivering ${rx.received[0].event.id}`));
    await rx.waitFor((all) => all.length === 2);
    assert.equal(rx.received[1].headers['webhook-id'], rx.received[0].headers['webhook-id']);

    const rotated = await me.succeed('webhooks', 'rotate', hook.id);
    assert.notEqual(rotated.stdout.trim(), secret);
    assert.match(rotated.stderr, /previous secret signs too until/);

    const typo = await me.run('webhooks', 'create', rx.url, '--events', 'job.finished');
    assert.equal(typo.code, 1);
    assert.match(
      typo.stderr,
      /^error: --events takes a comma-separated list of job.created, job.transitioned, job.terminal; got job.finished\n$/,
    );
    const refused = await me.run('webhooks', 'create', 'http://169.254.169.254/latest');
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^error: The webhook URL is refused: 169\.254\.169\.254 is a cloud metadata address.*\[request\.invalid\]\n$/,
    );

    await me.succeed('webhooks', 'delete', hook.id);
    assert.deepEqual(JSON.parse((await me.succeed('webhooks', 'list', '--json')).stdout), []);
    const gone = await me.run('webhooks', 'delete', hook.id);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /resource\.not_found/);
  });

  it('listen: registers an endpoint for this machine, prints and forwards each event, removes the endpoint on Ctrl-C', async function () {
    this.timeout(180_000);
    const me = await cliUser();
    const listening = startCompute(['webhooks', 'listen', '--forward-to', rx.url], { env: me.env });
    try {
      await listening.printed(/listening on http:\/\/127\.0\.0\.1:\d+\/ as wh_\w+/, 60_000);
      const hookId = /as (wh_\w+)/.exec(listening.stderr())![1];
      const job = await queuedJob(me.session.token);
      await v0ok('POST', `/jobs/${job.id}:cancel`, { token: me.session.token, status: 200 });
      await rx.waitFor(() => rx.of(job.id).length === 3);
      await listening.printed(new RegExp(`job.terminal\\s+${job.id} CANCELLED`), 10_000);
      assert.match(listening.stdout(), new RegExp(`job.transitioned\\s+${job.id} QUEUED → CANCELLED`));
      // Forwarded as it came, so the local app verifies it with the endpoint's secret as we did.
      // Stored sealed: opened with the suite's key, as the worker does.
      const { secret: stored } = await testEnv().db('webhooks').where({ id: hookId }).first('secret');
      const secret = createSecretBox(testEnv().config.webhooks.secretKeys!).open(stored, hookId);
      for (const r of rx.of(job.id))
        assert.deepEqual(await verifyWithReference({ secret, headers: r.headers, body: r.body }), { ok: true });
      // The forward target's answer is the delivery's.
      // (Each attempt is logged once its answer is in, a moment after the receiver answered.)
      let log = await v0ok('GET', `/webhooks/${hookId}/deliveries`, { token: me.session.token });
      for (let i = 0; i < 100 && log.items.length < 3; i++) {
        await new Promise((r) => setTimeout(r, 50));
        log = await v0ok('GET', `/webhooks/${hookId}/deliveries`, { token: me.session.token });
      }
      assert.deepEqual(
        log.items.map((d: { responseStatus: number }) => d.responseStatus),
        [204, 204, 204],
      );

      // Ctrl-C reaches the whole process group, npx included (which then ends by the signal).
      process.kill(-listening.pid, 'SIGINT');
      const done = await listening.finished(30_000);
      assert.match(done.stderr, new RegExp(`removed ${hookId}`));
      const row = await testEnv().db('webhooks').where({ id: hookId }).first('deleted_at');
      assert.ok(row.deleted_at, 'the endpoint is deleted');
    } finally {
      listening.kill();
    }
  });
});
