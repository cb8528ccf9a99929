// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { login } from '../support/auth';
import { quietLog, testEnv } from '../support/env';
import { createApiKey } from '../../src/auth/api-keys';
import { newWorkspace, post, postFrom } from '../support/http';

const PER_MINUTE = 30;
const AUTH_FAILURES = 5;

describe('rate limits', () => {
  const apis: ServiceProcess[] = [];
  // These APIs look names up in a schema of their own first: a `rate_limits` put there takes the
  // shared store away from them alone, not from the other APIs on this database (the other lane's).
  const detour = `rl_detour_${process.pid}`;
  before(async () => {
    await testEnv().db.raw(`CREATE SCHEMA IF NOT EXISTS ${detour}`);
    const url = new URL(testEnv().config.databaseUrl!);
    url.searchParams.set('options', `-c search_path=${detour},public`);
    const config = testEnv().configWith({
      DATABASE_URL: url.toString(),
      RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
      AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURES),
    });
    for (let i = 0; i < 2; i++)
      apis.push(await startServiceProcess({ config, log: quietLog, api: true, worker: false }));
  });
  after(async () => {
    for (const api of apis) await api.stop();
    await testEnv().db.raw(`DROP SCHEMA IF EXISTS ${detour} CASCADE`);
  });

  it('lets exactly the per-minute budget through across two API instances, then 429 with Retry-After', async () => {
    const { token } = await login();
    const replies = [];
    for (let i = 0; i < PER_MINUTE + 10; i++)
      replies.push(await post('/compute/jobs/list', {}, token, apis[i % 2].url!));
    const passed = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    assert.equal(passed.length, PER_MINUTE);
    assert.equal(refused.length, 10);
    // In order, but for the one lease another instance may still hold when this one refuses
    // (leased-limiter.ts: up to (instances - 1) x lease early; a lease is 1 of a 30 budget).
    const firstRefusal = replies.findIndex((r) => r.status === 429);
    assert.ok(firstRefusal >= PER_MINUTE - 1, `refused from request ${firstRefusal + 1}`);
    assert.ok(
      replies.slice(firstRefusal).filter((r) => r.status === 200).length <= 1,
      `statuses: ${replies.map((r) => r.status).join(' ')}`,
    );
    for (const r of refused) {
      assert.equal(r.body.code, 'rate_limit.exceeded');
      const wait = Number(r.headers.get('retry-after'));
      assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 60, `Retry-After ${wait}`);
      assert.equal(r.headers.get('ratelimit-remaining'), '0');
    }
    const firstHeaders = passed[0].headers;
    assert.equal(firstHeaders.get('ratelimit-limit'), String(PER_MINUTE));
    assert.equal(firstHeaders.get('ratelimit-remaining'), String(PER_MINUTE - 1));
    assert.equal(firstHeaders.get('ratelimit-policy'), `${PER_MINUTE};w=60, 30000;w=3600`);
  });

  it('counts each user on their own, and a user’s keys with their sessions', async () => {
    const busy = await login();
    const key = (await post('/compute/api-keys/create', { name: 'mine' }, busy.token)).body.payload.key as string;
    for (let i = 0; i < PER_MINUTE; i++) await post('/compute/jobs/list', {}, busy.token, apis[0].url!);
    assert.equal(
      (await post('/compute/jobs/list', {}, key, apis[1].url!)).status,
      429,
      "the user's key shares the user's budget",
    );
    const { key: otherKey } = await newWorkspace();
    assert.equal(
      (await post('/compute/jobs/list', {}, otherKey, apis[1].url!)).status,
      200,
      'another caller is unaffected',
    );
  });

  it("spends a user's budget for their agent keys and the nodes registered with them; a key without a user spends its workspace's", async () => {
    const owner = await login();
    // Set up on these APIs: the suite's own has a larger budget, so its leases (each up to 1/20 of
    // that budget) could spend this one's in the shared store before the test begins.
    const here = apis[0].url!;
    const agentKey = (await post('/compute/api-keys/create', { name: 'fleet', kind: 'agent' }, owner.token, here)).body
      .payload.key as string;
    const registered = async (credential: string, name: string) => {
      const reg = (await post('/compute/nodes/register', { name, labels: {} }, credential, here)).body.payload;
      return { nodeId: reg.nodeId as string, nodeKey: reg.apiKey as string };
    };
    const node = await registered(agentKey, 'fleet-1');
    const bySession = await registered(owner.token, 'fleet-2');
    // The node registered with the agent key spends the budget alone until it is refused. Setting
    // up spent some of it, so the test counts no exact remainder: it spends until the refusal,
    // then every credential of the user is refused, which a budget of their own would not be.
    const beats: number[] = [];
    for (let i = 0; i < PER_MINUTE + 2 && beats[beats.length - 1] !== 429; i++)
      beats.push(
        (await post('/compute/nodes/heartbeat', { nodeId: node.nodeId }, node.nodeKey, apis[i % 2].url!)).status,
      );
    assert.equal(beats[0], 200, `the node's first heartbeat passes: ${beats}`);
    assert.equal(beats[beats.length - 1], 429, `the node's heartbeats spend a budget: ${beats}`);
    assert.ok(beats.filter((s) => s === 200).length <= PER_MINUTE, `never past the budget: ${beats}`);
    for (const [credential, ask] of [
      [owner.token, () => ['/compute/jobs/list', {}]],
      [bySession.nodeKey, () => ['/compute/nodes/heartbeat', { nodeId: bySession.nodeId }]],
    ] as const) {
      // At most the one lease the other instance may hold passes before the refusal.
      const statuses = [];
      for (let i = 0; i < 2 && statuses[statuses.length - 1] !== 429; i++) {
        const [path, body] = ask();
        statuses.push((await post(path as string, body, credential, apis[i % 2].url!)).status);
      }
      assert.equal(statuses[statuses.length - 1], 429, `the node's heartbeats spent the user's budget: ${statuses}`);
    }
    assert.equal(
      (await post('/compute/jobs/list', {}, agentKey, apis[1].url!)).status,
      429,
      "the user's agent key too",
    );

    // Operator keys (no user) of one workspace share the workspace's budget.
    const ws = await newWorkspace();
    const second = await createApiKey(testEnv().db, { workspaceId: ws.workspaceId, name: 'second', kind: 'agent' });
    const statuses: number[] = [];
    for (let i = 0; i < PER_MINUTE; i++)
      statuses.push((await post('/compute/jobs/list', {}, ws.key, apis[i % 2].url!)).status);
    // The other key is refused once the budget is spent. A lease (one request of a 30 budget) the
    // other instance still holds may let it through once first, if the first key met a refusal
    // early for it; never past the budget the two keys share.
    for (let i = 0; i < 2 && statuses[statuses.length - 1] !== 429; i++)
      statuses.push((await post('/compute/jobs/list', {}, second.key, apis[i % 2].url!)).status);
    assert.equal(statuses[statuses.length - 1], 429, `the second key shares the workspace's budget: ${statuses}`);
    assert.ok(statuses.filter((s) => s === 200).length <= PER_MINUTE, `never past the budget: ${statuses}`);
  });

  it('counts refused credentials per client address and turns the address away before any lookup', async () => {
    const api = apis[0];
    const lookups: string[] = [];
    const onQuery = (q: { sql: string }) => {
      if (/api_keys/.test(q.sql)) lookups.push(q.sql);
    };
    const guesser = '127.0.0.7';
    const bad = 'ckuguessguess_' + 'x'.repeat(32);
    for (let i = 0; i < AUTH_FAILURES; i++)
      assert.equal((await postFrom(guesser, '/compute/jobs/list', {}, bad, api.url!)).status, 401);
    api.db.on('query', onQuery);
    try {
      for (let i = 0; i < 20; i++) {
        const reply = await postFrom(guesser, '/compute/jobs/list', {}, i % 2 ? bad : undefined, api.url!);
        assert.equal(reply.status, 429);
        assert.equal(reply.body.code, 'rate_limit.exceeded');
        assert.ok(Number(reply.headers['retry-after']) >= 1);
      }
      assert.deepEqual(lookups, [], 'no credential was looked up for the refused address');
    } finally {
      api.db.off('query', onQuery);
    }
    const { key } = await newWorkspace();
    assert.equal(
      (await postFrom('127.0.0.8', '/compute/jobs/list', {}, key, api.url!)).status,
      200,
      'another address is unaffected',
    );
    assert.equal(
      (await postFrom(guesser, '/compute/jobs/list', {}, key, apis[1].url!)).status,
      200,
      'counted per instance, in memory',
    );
  });

  it('falls back to the same limits per instance when the shared store fails, and shares them again once it is back', async () => {
    const { token } = await login();
    const burst = async (url: string, count: number) => {
      const replies = [];
      for (let i = 0; i < count; i++) replies.push(await post('/compute/jobs/list', {}, token, url));
      return replies;
    };
    // The store's own queries fail (their table is a view these APIs find first) while the API's
    // database works: the limiter is the only part that notices.
    await testEnv().db.raw(`CREATE VIEW ${detour}.rate_limits AS SELECT 'away' AS gone`);
    try {
      for (const api of apis) {
        const replies = await burst(api.url!, PER_MINUTE + 3);
        assert.deepEqual(
          replies.map((r) => r.status),
          [...Array(PER_MINUTE).fill(200), 429, 429, 429],
          'each instance lets the same budget through from its own memory',
        );
        const refused = replies[PER_MINUTE];
        assert.equal(refused.body.code, 'rate_limit.exceeded');
        assert.ok(Number(refused.headers.get('retry-after')) >= 1);
        assert.equal(replies[0].headers.get('ratelimit-remaining'), String(PER_MINUTE - 1));
      }
      // Meanwhile the suite's own API, on the same database, still leases from the shared store.
      const bystander = await login();
      assert.equal((await post('/compute/jobs/list', {}, bystander.token)).status, 200);
      assert.ok(
        await testEnv()
          .db('rate_limits')
          .where({ key: `rl_min:usr:${bystander.user.id}` })
          .first(),
        'the other APIs keep the shared store',
      );
    } finally {
      await testEnv().db.raw(`DROP VIEW ${detour}.rate_limits`);
    }
    const other = await login();
    const statuses = [];
    for (let i = 0; i < PER_MINUTE + 2; i++)
      statuses.push((await post('/compute/jobs/list', {}, other.token, apis[i % 2].url!)).status);
    // Both instances draw from the shared store again: the budget once across the two, refused in
    // order but for the one lease the other instance may hold (as in the first test).
    assert.equal(statuses.filter((s) => s === 200).length, PER_MINUTE, `statuses: ${statuses.join(' ')}`);
    const firstRefusal = statuses.indexOf(429);
    assert.ok(
      firstRefusal >= PER_MINUTE - 1 && statuses.slice(firstRefusal).filter((s) => s === 200).length <= 1,
      `statuses: ${statuses.join(' ')}`,
    );
  });
});
