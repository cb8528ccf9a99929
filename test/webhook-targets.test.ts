import assert from 'node:assert/strict';
import { TargetRefusedError, checkTarget, refusalOf, systemResolver, type Resolver } from '../src/webhooks/target-guard';
import { STRICT, DEV, REFUSED, PUBLIC, METADATA, literalUrl, noLookup, answering, post } from './support/webhook-targets';

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
      await assert.rejects(checkTarget('http://10.0.0.5/', STRICT, noLookup), { message: '10.0.0.5 is a private address' });
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
        for (const policy of [DEV, STRICT]) assert.equal(refusalOf(address, policy), 'a cloud metadata address', address);
        await assert.rejects(checkTarget(literalUrl(address), DEV, noLookup), /a cloud metadata address/, address);
      }
      await assert.rejects(checkTarget('http://metadata.test/latest', DEV, answering('169.254.169.254')), {
        message: 'metadata.test resolves to 169.254.169.254, a cloud metadata address',
      });
    });

    it('refuses URLs that are not plain http(s) to a host', async () => {
      for (const url of ['ftp://hooks.example.com/x', 'file:///etc/passwd', 'http://user:pw@hooks.example.com/', 'http://user@hooks.example.com/', 'not-a-url']) {
        await assert.rejects(checkTarget(url, DEV, noLookup), TargetRefusedError, url);
        const sent = await post(url, { policy: DEV, resolve: noLookup });
        assert.equal(sent.ok, false, url);
        assert.match(sent.error ?? '', /^refused target: /, url);
      }
    });

    it('refuses a hostname if any address it resolves to is refused, or if it does not resolve', async () => {
      await assert.rejects(checkTarget('https://evil.test/', STRICT, answering('127.0.0.1')), { message: 'evil.test resolves to 127.0.0.1, a loopback address' });
      await assert.rejects(checkTarget('https://mixed.test/', STRICT, answering('93.184.215.14', '10.0.0.5')), {
        message: 'mixed.test resolves to 10.0.0.5, a private address',
      });
      await assert.rejects(checkTarget('https://none.test/', STRICT, answering()), /does not resolve/);
      const notFound: Resolver = async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      };
      await assert.rejects(checkTarget('https://gone.test/', STRICT, notFound), { message: 'gone.test does not resolve (ENOTFOUND)' });
    });

    it('resolves with the system resolver by default', async () => {
      const local = await systemResolver('localhost');
      assert.ok(local.some((a) => a.address === '127.0.0.1' || a.address === '::1'), JSON.stringify(local));
      await assert.rejects(checkTarget('http://localhost:8080/', STRICT), /localhost resolves to .*a loopback address/);
      await assert.rejects(checkTarget('http://no-such-host.invalid/', STRICT), /no-such-host\.invalid does not resolve/);
    });
  });
});
