// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { login } from '../support/auth';
import { quietLog, testEnv } from '../support/env';
import { ok, post, resultOf, sleep } from '../support/http';

const createKey = (token: string, body: Record<string, unknown>) =>
  ok('/compute/api-keys/create', { name: 'k', ...body }, token);
const submitWith = (key: string) => post('/compute/jobs/submit', { type: 'COMMAND', command: 'echo quota' }, key);
const registerWith = async (key: string, name = 'n') => {
  const reg = await ok('/compute/nodes/register', { name, labels: {} }, key);
  return { nodeId: reg.nodeId as string, nodeKey: reg.apiKey as string };
};
const pollJobs = async (node: { nodeId: string; nodeKey: string }, maxJobs = 5) =>
  (await ok('/compute/nodes/poll', { nodeId: node.nodeId, maxJobs, waitSeconds: 0 }, node.nodeKey)).jobs as Array<{
    job_id: string;
    leaseId: string;
  }>;

describe('API keys', () => {
  let second: ServiceProcess;
  before(async () => {
    second = await startServiceProcess({ config: testEnv().config, log: quietLog, api: true, worker: false });
  });
  after(() => second.stop());

  it('creates (JWT only), lists without secrets, and revokes at once on every API instance', async () => {
    const { token } = await login();
    const made = await createKey(token, {
      name: 'ci',
      kind: 'agent',
      quotas: { maxJobsPerHour: 50, allowedJobTypes: ['COMMAND'] },
    });
    assert.match(made.key, new RegExp(`^${made.prefix}_`));
    assert.match(made.id, /^key_/);
    assert.deepEqual(
      [made.kind, made.name, made.quotas, made.revokedAt],
      ['agent', 'ci', { maxJobsPerHour: 50, allowedJobTypes: ['COMMAND'] }, null],
    );

    const viaKey = await post('/compute/api-keys/create', { name: 'x' }, made.key);
    assert.deepEqual([viaKey.status, viaKey.body.code], [403, 'auth.forbidden'], 'a key cannot mint keys');
    const badQuota = await post('/compute/api-keys/create', { name: 'x', quotas: { maxJobsPerHour: 0 } }, token);
    assert.deepEqual([badQuota.status, badQuota.body.code], [400, 'request.invalid']);

    assert.equal((await post('/compute/jobs/list', {}, made.key, second.url!)).status, 200);
    const listed = await ok('/compute/api-keys/list', {}, made.key);
    assert.deepEqual(
      listed.keys.map((k: { id: string }) => k.id),
      [made.id],
    );
    assert.ok(listed.keys[0].lastUsedAt, 'last use is recorded');
    assert.ok(!JSON.stringify(listed).includes(made.key.split('_')[1]), 'never the secret');

    const revoked = await ok('/compute/api-keys/revoke', { id: made.id }, token);
    assert.ok(revoked.revokedAt);
    for (const url of [testEnv().url, second.url!]) {
      const refused = await post('/compute/jobs/list', {}, made.key, url);
      assert.deepEqual([refused.status, refused.body.code], [401, 'auth.unauthenticated']);
    }
    assert.equal(
      (await ok('/compute/api-keys/revoke', { id: made.id }, token)).revokedAt,
      revoked.revokedAt,
      'idempotent',
    );
    const other = await login();
    const foreign = await post('/compute/api-keys/revoke', { id: made.id }, other.token);
    assert.deepEqual([foreign.status, foreign.body.code], [404, 'resource.not_found']);
  });

  it('enforces maxJobsPerHour, maxConcurrentJobs and allowedJobTypes at submit', async () => {
    const { token } = await login();
    const hourly = (await createKey(token, { quotas: { maxJobsPerHour: 2 } })).key;
    assert.equal((await submitWith(hourly)).status, 200);
    assert.equal((await submitWith(hourly)).status, 200);
    const third = await submitWith(hourly);
    assert.deepEqual([third.status, third.body.code], [429, 'quota.exceeded']);
    const wait = Number(third.headers.get('retry-after'));
    assert.ok(wait > 3500 && wait <= 3600, `Retry-After ${wait} s: until the first submit leaves the hour`);

    const concurrent = (await createKey(token, { quotas: { maxConcurrentJobs: 1 } })).key;
    const first = (await submitWith(concurrent)).body.payload;
    const blocked = await submitWith(concurrent);
    assert.deepEqual([blocked.status, blocked.body.code], [429, 'quota.exceeded']);
    assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
    await ok('/compute/jobs/cancel', { job_id: first.job_id }, concurrent);
    for (let i = 0; (await submitWith(concurrent)).status !== 200; i++) {
      assert.ok(i < 50, 'a slot frees once the first job is cancelled');
      await sleep(50);
    }

    const typed = (await createKey(token, { quotas: { allowedJobTypes: ['DOCKER'] } })).key;
    const forbidden = await submitWith(typed);
    assert.deepEqual([forbidden.status, forbidden.body.code], [403, 'auth.forbidden']);
    const jobs = await testEnv()
      .db('jobs')
      .where({
        submitted_with_key_id: (
          await testEnv()
            .db('api_keys')
            .where({ prefix: typed.split('_')[0] })
            .first()
        ).id,
      });
    assert.equal(jobs.length, 0, 'a refused submit writes nothing');
  });

  it('bounds the jobs handed to all nodes registered with a key', async () => {
    const { token } = await login();
    for (let i = 0; i < 4; i++) await ok('/compute/jobs/submit', { type: 'COMMAND', command: `echo ${i}` }, token);

    const concurrent = (await createKey(token, { kind: 'agent', quotas: { maxConcurrentJobs: 1 } })).key;
    const a = await registerWith(concurrent, 'a');
    const b = await registerWith(concurrent, 'b');
    const held = await pollJobs(a);
    assert.equal(held.length, 1, 'one at a time, though five were asked for');
    assert.deepEqual(await pollJobs(b), [], 'the other node of the key gets nothing meanwhile');
    await ok('/compute/nodes/result', resultOf(a, held[0], 0), a.nodeKey);
    assert.equal((await pollJobs(b)).length, 1, 'the slot is free again');

    const hourly = (await createKey(token, { kind: 'agent', quotas: { maxJobsPerHour: 1 } })).key;
    const c = await registerWith(hourly, 'c');
    const one = await pollJobs(c);
    assert.equal(one.length, 1);
    await ok('/compute/nodes/result', resultOf(c, one[0], 0), c.nodeKey);
    assert.deepEqual(await pollJobs(c), [], 'one hand-out per hour, even with the node idle');

    const typed = (await createKey(token, { kind: 'agent', quotas: { allowedJobTypes: ['DOCKER'] } })).key;
    assert.deepEqual(await pollJobs(await registerWith(typed, 'd')), [], 'no COMMAND jobs for this key');
    const free = await registerWith(token, 'free');
    assert.equal((await pollJobs(free)).length, 1, 'the last job was left for a node without quotas');
  });
});
