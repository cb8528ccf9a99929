import assert from 'node:assert/strict';
import { createDb } from '../src/db/knex';
import { createRateLimiter } from '../src/http/rate-limit';
import { type ServiceProcess, startServiceProcess } from '../src/runtime/service-process';
import { freePort } from '../src/stack/ports';
import { login } from './support/auth';
import { quietLog, testEnv } from './support/env';
import { newWorkspace, post } from './support/http';

const PER_MINUTE = 30;

describe('rate limits', () => {
  const apis: ServiceProcess[] = [];
  before(async () => {
    const config = testEnv().configWith({ RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });
    for (let i = 0; i < 2; i++) apis.push(await startServiceProcess({ config, log: quietLog, api: true, worker: false }));
  });
  after(async () => {
    for (const api of apis) await api.stop();
  });

  it('lets exactly the per-minute budget through across two API instances, then 429 with Retry-After', async () => {
    const { token } = await login();
    const replies = [];
    for (let i = 0; i < PER_MINUTE + 10; i++) replies.push(await post('/compute/jobs/list', {}, token, apis[i % 2].url!));
    const passed = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    assert.equal(passed.length, PER_MINUTE);
    assert.equal(refused.length, 10);
    assert.deepEqual(replies.slice(PER_MINUTE).map((r) => r.status), Array(10).fill(429), 'the budget is spent in order');
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
    assert.equal((await post('/compute/jobs/list', {}, key, apis[1].url!)).status, 429, "the user's key shares the user's budget");
    const { key: otherKey } = await newWorkspace();
    assert.equal((await post('/compute/jobs/list', {}, otherKey, apis[1].url!)).status, 200, 'another caller is unaffected');
  });

  it('falls back to the same limits per instance when the shared store is down', async () => {
    const deadStore = createDb(`postgres://postgres:postgres@127.0.0.1:${await freePort()}/none`, { log: quietLog });
    try {
      const limiter = createRateLimiter({ db: deadStore, perMinute: 3, perHour: 100, log: quietLog });
      const verdicts = [];
      for (let i = 0; i < 5; i++) verdicts.push((await limiter.consume('usr:outage')).allowed);
      assert.deepEqual(verdicts, [true, true, true, false, false]);
      const other = await limiter.consume('usr:someone-else');
      assert.equal(other.allowed, true);
    } finally {
      await deadStore.destroy();
    }
  });
});
