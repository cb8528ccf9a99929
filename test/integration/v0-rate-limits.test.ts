// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { apisPerTest } from '../support/api-process';
import { login } from '../support/auth';
import { compute } from '../support/cli';
import { v0, v0ok } from '../support/v0';

describe('/v0 request budgets by plan, per workspace', () => {
  const apiWith = apisPerTest();

  it('a PAYG workspace across two API instances: a burst of 200 passes, the excess is 429 with a sane Retry-After; hobby is unlimited', async function () {
    this.timeout(60_000);
    const s = await login();
    const other = await v0ok('POST', '/workspaces', { token: s.token, body: { name: 'other' } });
    const [a, b] = [await apiWith(), await apiWith()];
    const burst = async (n: number) => {
      const started = Date.now();
      const replies = await Promise.all(
        Array.from({ length: n }, (_, i) => v0('GET', '/tokens', { token: s.token, baseUrl: i % 2 ? a.url : b.url })),
      );
      return { replies, ms: Date.now() - started };
    };
    // Hobby: no budget at all.
    const free = await burst(300);
    assert.deepEqual([...new Set(free.replies.map((r) => r.status))], [200]);

    const set = await compute(['admin', 'set-plan', s.user.workspaceId, 'payg']);
    assert.equal(set.code, 0, set.stderr);
    const { replies, ms } = await burst(300);
    const passed = replies.filter((r) => r.status === 200).length;
    const refused = replies.filter((r) => r.status === 429);
    console.log(`      300 requests in ${ms} ms through two instances: ${passed} passed, ${refused.length} refused`);
    // Two instances may refuse up to one lease (1/20 of the limit) early; never more than the burst
    // in one window (the burst took under a second, so it spans at most two 1-s windows).
    assert.ok(passed >= 190, `${passed} passed: the burst of 200 goes through`);
    assert.ok(passed <= (ms < 1000 ? 400 : 1000), `${passed} passed`);
    assert.ok(refused.length >= 1);
    for (const r of refused) {
      assert.equal(r.body.code, 'rate_limit.exceeded');
      const retryAfter = Number(r.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 10, `Retry-After ${retryAfter}`);
      assert.ok(r.headers.get('ratelimit-limit'));
    }
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
