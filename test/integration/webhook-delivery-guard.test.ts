import assert from 'node:assert/strict';
import { checkTarget, type Resolver } from '../../src/webhooks/target-guard';
import { STRICT, DEV, METADATA, literalUrl, noLookup, answering, post, Receiver } from '../support/webhook-targets';

// The SSRF guard where a webhook delivery connects (CONTRACT §7), against a real HTTP receiver on
// 127.0.0.1; ./webhook-targets.test.ts has its verdicts on addresses and URLs.

describe('webhook targets: the SSRF guard', () => {
  const started: Receiver[] = [];
  const receiver = async (answer?: ConstructorParameters<typeof Receiver>[0]) => {
    const r = await new Receiver(answer).start();
    started.push(r);
    return r;
  };
  afterEach(async () => {
    await Promise.all(started.splice(0).map((r) => r.stop()));
  });

  describe('delivering', () => {
    it('never connects to a hostname that resolves to a refused address', async () => {
      const r = await receiver();
      const toLoopback = await post(`http://evil.test:${r.port}/x`, { resolve: answering('127.0.0.1') });
      assert.equal(toLoopback.ok, false);
      assert.equal(toLoopback.status, null);
      assert.equal(toLoopback.error, 'refused target: evil.test resolves to a loopback address');
      const oneOfTwo = await post(`http://mixed.test:${r.port}/x`, {
        resolve: answering('127.0.0.1', '93.184.215.14'),
      });
      assert.equal(oneOfTwo.error, 'refused target: mixed.test resolves to a loopback address');
      const literal = await post(`http://127.0.0.1:${r.port}/x`, { resolve: noLookup });
      assert.equal(literal.error, 'refused target: 127.0.0.1 is a loopback address');
      const mapped = await post(`http://[::ffff:127.0.0.1]:${r.port}/x`, { resolve: noLookup });
      assert.match(mapped.error ?? '', /^refused target: .* of 127\.0\.0\.1, a loopback address$/);
      assert.equal(r.connections, 0);
      assert.equal(r.hits.length, 0);
    });

    it('never connects to metadata, even where private targets are allowed', async () => {
      for (const address of METADATA) {
        const named = await post('http://meta.test/latest/meta-data', {
          policy: DEV,
          resolve: answering(address),
          timeoutMs: 2_000,
        });
        assert.equal(named.error, 'refused target: meta.test resolves to a cloud metadata address', address);
        const literal = await post(literalUrl(address), { policy: DEV, resolve: noLookup, timeoutMs: 2_000 });
        assert.match(literal.error ?? '', /^refused target: .* is a cloud metadata address$/, address);
      }
    });

    it('checks the address it connects to, not the one checked at registration (DNS rebinding)', async () => {
      const r = await receiver();
      let calls = 0;
      const rebinding: Resolver = async () => [{ address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
      const url = `http://rebind.test:${r.port}/x`;
      await checkTarget(url, STRICT, rebinding);
      const sent = await post(url, { resolve: rebinding });
      assert.equal(calls, 2, 'the delivery resolved the name again');
      assert.equal(sent.ok, false);
      assert.equal(sent.error, 'refused target: rebind.test resolves to a loopback address');
      assert.equal(r.connections, 0);
    });

    it('delivers to an allowed private target with the body and headers intact', async () => {
      const r = await receiver((_req, res) => res.writeHead(202, { 'content-type': 'text/plain' }).end('accepted ✓'));
      const body = JSON.stringify({ id: 'evt_1', type: 'job.created', data: { note: 'héllo ✓ 🚀' } });
      const headers = {
        'webhook-id': 'evt_1',
        'webhook-timestamp': '1700000000',
        'webhook-signature': 'v1,abc= v1,def=',
      };
      const sent = await post(`http://hooks.test:${r.port}/x?y=1`, {
        policy: DEV,
        resolve: answering('127.0.0.1'),
        headers,
        body,
      });
      assert.deepEqual(
        { ok: sent.ok, status: sent.status, body: sent.body, error: sent.error },
        { ok: true, status: 202, body: 'accepted ✓', error: null },
      );
      assert.ok(sent.durationMs >= 0 && sent.durationMs < 5_000, String(sent.durationMs));
      assert.equal(r.hits.length, 1);
      const [hit] = r.hits;
      assert.equal(hit.method, 'POST');
      assert.equal(hit.url, '/x?y=1');
      assert.equal(hit.body, body);
      assert.equal(hit.headers.host, `hooks.test:${r.port}`);
      assert.equal(hit.headers['content-type'], 'application/json');
      assert.equal(hit.headers['user-agent'], 'compute-webhooks/1');
      assert.equal(hit.headers['content-length'], String(Buffer.byteLength(body)));
      for (const [k, v] of Object.entries(headers)) assert.equal(hit.headers[k], v, k);

      const own = await post(`http://127.0.0.1:${r.port}/y`, {
        policy: DEV,
        resolve: noLookup,
        headers: { 'content-type': 'text/plain', 'USER-AGENT': 'mine' },
      });
      assert.equal(own.ok, true);
      assert.equal(r.hits[1].headers['content-type'], 'text/plain');
      assert.equal(r.hits[1].headers['user-agent'], 'mine');
      const names = r.hits[1].rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
      assert.equal(
        names.filter((n) => n === 'content-type' || n === 'user-agent').length,
        2,
        'the given headers replace the defaults',
      );
    });

    it('does not follow redirects', async () => {
      const elsewhere = await receiver();
      let location = 'http://169.254.169.254/latest/meta-data';
      const r = await receiver((_req, res) => res.writeHead(302, { location }).end('moved'));
      const toMetadata = await post(`http://hooks.test:${r.port}/x`, { policy: DEV, resolve: answering('127.0.0.1') });
      assert.equal(toMetadata.ok, false);
      assert.equal(toMetadata.status, 302);
      assert.equal(toMetadata.error, 'redirect (302 to http://169.254.169.254/latest/meta-data) not followed');

      location = `http://127.0.0.1:${elsewhere.port}/stolen`;
      const toAllowed = await post(`http://hooks.test:${r.port}/x`, { policy: DEV, resolve: answering('127.0.0.1') });
      assert.equal(toAllowed.ok, false);
      assert.match(toAllowed.error ?? '', /^redirect \(302 to http:\/\/127\.0\.0\.1:\d+\/stolen\) not followed$/);
      assert.equal(r.hits.length, 2);
      assert.equal(elsewhere.connections, 0);
    });

    it('gives up at the deadline, wherever the attempt is', async () => {
      const silent = await receiver(() => undefined);
      const stalled = await receiver((_req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial');
      });
      const hanging: Resolver = () => new Promise(() => undefined);
      const cases: Array<[string, Parameters<typeof post>]> = [
        ['no answer', [`http://127.0.0.1:${silent.port}/x`, { policy: DEV }]],
        ['a stalled body', [`http://127.0.0.1:${stalled.port}/x`, { policy: DEV }]],
        ['a resolver that never answers', ['http://slow-dns.test/x', { policy: DEV, resolve: hanging }]],
      ];
      for (const [what, [url, extra]] of cases) {
        const before = Date.now();
        const sent = await post(url, { ...extra, timeoutMs: 300 });
        const took = Date.now() - before;
        assert.equal(sent.ok, false, what);
        assert.equal(sent.error, 'timed out after 300 ms', what);
        assert.ok(sent.durationMs >= 290 && sent.durationMs < 1_500, `${what}: durationMs ${sent.durationMs}`);
        assert.ok(took < 1_500, `${what}: took ${took} ms`);
      }
      assert.equal(silent.hits.length, 1);
      assert.equal(stalled.hits.length, 1);
    });

    it('reads no more of an answer than the limit, and cuts the connection there', async () => {
      let serverSawClose = false;
      const big = await receiver((_req, res) => {
        res.on('close', () => (serverSawClose = true));
        res.writeHead(200).end('a'.repeat(1024 * 1024));
      });
      const before = Date.now();
      const sent = await post(`http://127.0.0.1:${big.port}/x`, { policy: DEV, bodyLimitBytes: 1024 });
      assert.ok(Date.now() - before < 2_000, 'returned promptly');
      assert.equal(sent.ok, true);
      assert.equal(sent.body, 'a'.repeat(1024));

      // An endless answer: only stopping at the limit lets the call return at all.
      const endless = await receiver((_req, res) => {
        res.writeHead(200);
        const pump = () => {
          while (!res.destroyed && res.write('€'.repeat(10_000)));
          if (!res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => (serverSawClose = true));
        pump();
      });
      serverSawClose = false;
      const cut = await post(`http://127.0.0.1:${endless.port}/x`, {
        policy: DEV,
        bodyLimitBytes: 1024,
        timeoutMs: 10_000,
      });
      assert.equal(cut.error, null);
      assert.ok(Buffer.byteLength(cut.body) <= 1024, String(Buffer.byteLength(cut.body)));
      assert.equal(cut.body, '€'.repeat(341), 'cut at a character boundary');
      assert.ok(cut.durationMs < 2_000, String(cut.durationMs));
      const deadline = Date.now() + 2_000;
      while (!serverSawClose && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.ok(serverSawClose, 'the receiver saw the connection closed');
    });

    it('keeps the status and body of an error answer, and reports network failures', async () => {
      const failing = await receiver((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('boom'));
      const sent = await post(`http://127.0.0.1:${failing.port}/x`, { policy: DEV });
      assert.deepEqual(
        { ok: sent.ok, status: sent.status, body: sent.body, error: sent.error },
        { ok: false, status: 500, body: 'boom', error: null },
      );

      const closed = await receiver();
      const port = closed.port;
      await closed.stop();
      started.splice(started.indexOf(closed), 1);
      const refused = await post(`http://127.0.0.1:${port}/x`, { policy: DEV });
      assert.deepEqual(
        { ok: refused.ok, status: refused.status, error: refused.error },
        { ok: false, status: null, error: 'connection refused' },
      );

      const reset = await receiver((req) => req.socket.destroy());
      const dropped = await post(`http://127.0.0.1:${reset.port}/x`, { policy: DEV });
      assert.equal(dropped.ok, false);
      assert.match(dropped.error ?? '', /ECONNRESET|socket hang up/);
    });
  });
});
