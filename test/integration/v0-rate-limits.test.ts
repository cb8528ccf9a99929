// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { apisPerTest } from '../support/api-process';
import { login } from '../support/auth';
import { compute } from '../support/cli';
import { burstOfReads, v0, v0ok } from '../support/v0';

describe('/v0 request budgets by plan, per workspace', () => {
  const apiWith = apisPerTest();

  it('a PAYG workspace across two API instances: a burst of 200 passes; past its budget a request is 429 with a sane Retry-After; hobby is unlimited', async function () {
    this.timeout(60_000);
    const s = await login();
    const other = await v0ok('POST', '/workspaces', { token: s.token, body: { name: 'other' } });
    const [a, b] = [await apiWith(), await apiWith()];
    const burst = (n: number) => burstOfReads(n, { token: s.token, baseUrls: [b.url, a.url] });
    // Hobby: no budget at all.
    const free = await burst(300);
    assert.deepEqual([...new Set(free.replies.map((r) => r.status))], [200]);

    const set = await compute(['admin', 'set-plan', s.user.workspaceId, 'payg']);
    assert.equal(set.code, 0, set.stderr);
    const { replies, ms, passed, refused, allowedAtMost } = await burst(300);
    console.log(`      300 requests in ${ms} ms through two instances: ${passed} passed, ${refused.length} refused`);
    // PAYG's budget, as every answer states it: 200 in any one second, 1000 in any ten.
    for (const r of replies) assert.equal(r.headers.get('ratelimit-policy'), '200;w=1, 1000;w=10');
    // Two instances may refuse up to one lease (1/20 of the limit) early. Fixed windows: a burst
    // spans at most one more one-second window than it lasted whole seconds. Whether any of it is
    // refused depends on how fast this machine sends it, so the refusals are the next budget's.
    assert.ok(passed >= 190, `${passed} passed: the burst of 200 goes through`);
    assert.ok(passed <= allowedAtMost, `${passed} passed in ${ms} ms`);
    const sane = (r: (typeof refused)[number]) => {
      assert.equal(r.body.code, 'rate_limit.exceeded');
      const retryAfter = Number(r.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 10, `Retry-After ${retryAfter}`);
      assert.ok(r.headers.get('ratelimit-limit'));
    };
    refused.forEach(sane);

    // A budget any machine's burst exceeds (4 in a second, 20 in ten): the excess is refused,
    // whichever instance it reaches.
    const tight = await compute(['admin', 'set-plan', s.user.workspaceId, 'enterprise', '--rps', '2', '--burst', '4']);
    assert.equal(tight.code, 0, tight.stderr);
    const over = await burst(100);
    assert.ok(over.passed <= over.allowedAtMost, `${over.passed} passed in ${over.ms} ms`);
    assert.equal(over.passed + over.refused.length, 100);
    assert.ok(over.refused.length >= 1);
    over.refused.forEach(sane);
    for (const r of over.replies) assert.equal(r.headers.get('ratelimit-policy'), '4;w=1, 20;w=10');
    // Another workspace of the same user has its own budget.
    assert.equal(
      (await v0('GET', '/tokens', { token: s.token, headers: { 'X-Compute-Workspace': other.id } })).status,
      200,
    );

    const typo = await compute(['admin', 'set-plan', s.user.workspaceId, 'gold']);
    assert.notEqual(typo.code, 0);
    assert.match(typo.stderr, /unknown plan "gold": one of hobby, payg, team, enterprise/);
  });
});
