import assert from 'node:assert/strict';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import {
  TargetRefusedError,
  checkTarget,
  refusalOf,
  systemResolver,
  type Resolver,
} from '../../src/webhooks/target-guard';
import { login } from '../support/auth';
import { quietLog, testEnv } from '../support/env';
import { v0, v0ok } from '../support/v0';
import { deliveriesOf, until } from '../support/webhook-receiver';
import {
  STRICT,
  DEV,
  REFUSED,
  PUBLIC,
  METADATA,
  literalUrl,
  noLookup,
  answering,
  post,
} from '../support/webhook-targets';

// The SSRF guard's verdicts on webhook targets (CONTRACT §7); ./webhook-delivery-guard.test.ts
// checks the same rules where a delivery connects.

describe('webhook targets: the SSRF guard', () => {
  describe('which addresses may be targets', () => {
    it('refuses every non-public range when private targets are off', async () => {
      for (const address of REFUSED) {
        assert.ok(refusalOf(address, STRICT), `${address} is refused`);
        await assert.rejects(checkTarget(literalUrl(address), STRICT, noLookup), TargetRefusedError, address);
      }
      assert.equal(refusalOf('127.0.0.1', STRICT), 'a loopback address');
      assert.equal(refusalOf('10.1.2.3', STRICT), 'a private address');
      assert.match(refusalOf('::ffff:10.0.0.1', STRICT) ?? '', /of 10\.0\.0\.1, a private address$/);
      assert.match(refusalOf('::ffff:127.0.0.1', STRICT) ?? '', /of 127\.0\.0\.1, a loopback address$/);
      await assert.rejects(checkTarget('http://10.0.0.5/', STRICT, noLookup), {
        message: '10.0.0.5 is a private address',
      });
    });

    it('accepts public addresses', async () => {
      for (const address of PUBLIC) {
        assert.equal(refusalOf(address, STRICT), undefined, address);
        await checkTarget(literalUrl(address, 443).replace('http:', 'https:'), STRICT, noLookup);
      }
      await checkTarget('https://hooks.example.com/x', STRICT, answering(...PUBLIC));
    });

    it('allows private and loopback targets when the policy does, but never metadata', async () => {
      for (const address of REFUSED) assert.equal(refusalOf(address, DEV), undefined, address);
      await checkTarget('http://127.0.0.1:8080/hook', DEV, noLookup);
      await checkTarget('http://hooks.test/hook', DEV, answering('10.0.0.5', '::1'));
      for (const address of METADATA) {
        for (const policy of [DEV, STRICT])
          assert.equal(refusalOf(address, policy), 'a cloud metadata address', address);
        await assert.rejects(checkTarget(literalUrl(address), DEV, noLookup), /a cloud metadata address/, address);
      }
      await assert.rejects(checkTarget('http://metadata.test/latest', DEV, answering('169.254.169.254')), {
        message: 'metadata.test resolves to a cloud metadata address',
      });
    });

    it('refuses URLs that are not plain http(s) to a host', async () => {
      for (const url of [
        'ftp://hooks.example.com/x',
        'file:///etc/passwd',
        'http://user:pw@hooks.example.com/',
        'http://user@hooks.example.com/',
        'not-a-url',
      ]) {
        await assert.rejects(checkTarget(url, DEV, noLookup), TargetRefusedError, url);
        const sent = await post(url, { policy: DEV, resolve: noLookup });
        assert.equal(sent.ok, false, url);
        assert.match(sent.error ?? '', /^refused target: /, url);
      }
    });

    it('refuses a hostname if any address it resolves to is refused, or if it does not resolve', async () => {
      await assert.rejects(checkTarget('https://evil.test/', STRICT, answering('127.0.0.1')), {
        message: 'evil.test resolves to a loopback address',
      });
      await assert.rejects(checkTarget('https://mixed.test/', STRICT, answering('93.184.215.14', '10.0.0.5')), {
        message: 'mixed.test resolves to a private address',
      });
      await assert.rejects(checkTarget('https://none.test/', STRICT, answering()), /does not resolve/);
      const notFound: Resolver = async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      };
      await assert.rejects(checkTarget('https://gone.test/', STRICT, notFound), {
        message: 'gone.test does not resolve (ENOTFOUND)',
      });
    });

    it('never names the address a hostname resolved to, in a refusal or a delivery error (internal DNS stays private)', async () => {
      for (const address of [...REFUSED, ...METADATA]) {
        const policy = METADATA.includes(address) ? DEV : STRICT;
        const refused = await checkTarget('http://internal.test/hook', policy, answering(address)).then(
          () => assert.fail(`${address} accepted`),
          (err: Error) => err.message,
        );
        assert.match(refused, /^internal\.test resolves to an? [a-zA-Z46 ()-]+ address$/, address);
        // No address of any form: neither the answer itself nor an IPv4 address it wraps.
        assert.doesNotMatch(refused, /\d+\.\d+\.\d+\.\d+|[0-9a-f]*:[0-9a-f:]*/i, address);
        const sent = await post('http://internal.test/hook', { policy, resolve: answering(address) });
        assert.equal(sent.error, `refused target: ${refused}`, address);
      }
      await assert.rejects(checkTarget('http://internal.test/', STRICT, answering('::ffff:10.0.0.1')), {
        message: 'internal.test resolves to an IPv4-mapped form of a private address',
      });
      await assert.rejects(checkTarget('http://internal.test/', STRICT, answering('fe80::1')), {
        message: 'internal.test resolves to a link-local address',
      });
      // An address the caller wrote themselves is named: it tells them nothing new.
      await assert.rejects(
        checkTarget('http://[::ffff:10.0.0.1]/', STRICT, noLookup),
        /of 10\.0\.0\.1, a private address$/,
      );
    });

    it('resolves with the system resolver by default', async () => {
      const local = await systemResolver('localhost');
      assert.ok(
        local.some((a) => a.address === '127.0.0.1' || a.address === '::1'),
        JSON.stringify(local),
      );
      await assert.rejects(checkTarget('http://localhost:8080/', STRICT), {
        message: 'localhost resolves to a loopback address',
      });
      await assert.rejects(
        checkTarget('http://no-such-host.invalid/', STRICT),
        /no-such-host\.invalid does not resolve/,
      );
    });
  });
});

// The same through the service: an API and worker of their own, with private targets refused and
// hostnames resolved as the test says.
describe('webhook targets: refusals through the API and in the delivery log', () => {
  let own: ServiceProcess;
  const answers: Record<string, string> = {};

  before(async function () {
    this.timeout(60_000);
    // This worker (and its relay) alone delivers while the suite's relay rests.
    testEnv().service.relay!.pause();
    own = await startServiceProcess({
      config: testEnv().configWith({
        TEMPORAL_TASK_QUEUE: `webhook-targets-${Date.now()}`,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
      }),
      log: quietLog,
      api: true,
      worker: true,
      workflowBundle: testEnv().bundle,
      resolve: async (host) => [{ address: answers[host] ?? '93.184.215.14', family: 4 }],
    });
  });
  after(async () => {
    await own?.stop();
    testEnv().service.relay!.resume();
  });

  it('refuses registration with what kind of address the name resolves to, never which (400 request.invalid)', async () => {
    const s = await login();
    Object.assign(answers, {
      'hooks.internal.test': '10.20.30.40',
      'loop.internal.test': '127.0.0.2',
      'meta.internal.test': '169.254.169.254',
      'link.internal.test': '169.254.7.7',
    });
    const cases: Array<[string, string]> = [
      ['hooks.internal.test', 'a private address'],
      ['loop.internal.test', 'a loopback address'],
      ['meta.internal.test', 'a cloud metadata address'],
      ['link.internal.test', 'a link-local address'],
    ];
    for (const [host, kind] of cases) {
      const reply = await v0('POST', '/webhooks', {
        token: s.token,
        body: { url: `http://${host}/hook` },
        baseUrl: own.url,
      });
      assert.equal(reply.status, 400, JSON.stringify(reply.body));
      assert.equal(reply.body.code, 'request.invalid');
      assert.equal(reply.body.detail, `The webhook URL is refused: ${host} resolves to ${kind}`);
      assert.deepEqual(reply.body.errors, [{ path: 'url', message: `${host} resolves to ${kind}` }]);
      assert.ok(
        !JSON.stringify(reply.body).includes(answers[host]),
        `${answers[host]} is not named: ${JSON.stringify(reply.body)}`,
      );
    }
  });

  it('logs a delivery refused at connect time (DNS rebinding) without the address', async function () {
    this.timeout(60_000);
    const s = await login();
    answers['rebind.internal.test'] = '93.184.215.14';
    const hook = await v0ok('POST', '/webhooks', {
      token: s.token,
      body: { url: 'http://rebind.internal.test/hook', events: ['job.created'] },
      baseUrl: own.url,
    });
    answers['rebind.internal.test'] = '10.20.30.41';
    await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
      baseUrl: own.url,
    });
    const log = await until(
      'the first attempt to be logged',
      () => deliveriesOf(s.token, hook.id, own.url),
      (l) => l.length > 0,
      30_000,
    );
    assert.equal(log[0].error, 'refused target: rebind.internal.test resolves to a private address');
    assert.equal(log[0].responseStatus, null);
    assert.ok(!JSON.stringify(log).includes('10.20.30.41'), JSON.stringify(log));
    // Nothing more is tried.
    await v0ok('DELETE', `/webhooks/${hook.id}`, { token: s.token, baseUrl: own.url, status: 204 });
  });
});
