// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { createTokenIssuer } from '../../src/auth/jwt';
import { login } from '../support/auth';
import { TEST_ENV, testEnv } from '../support/env';
import { ok, post, pollOne, registerNode, resultOf } from '../support/http';
import { team } from '../support/team';
import { v0, v0ok } from '../support/v0';

type Row = {
  action: string;
  outcome: string;
  actor_id: string;
  actor_type: string;
  target_id: string;
  details: Record<string, unknown>;
  ip: string | null;
};
const entriesOf = async (workspaceId: string): Promise<Row[]> =>
  testEnv().db('audit_log').where({ workspace_id: workspaceId }).orderBy('id');
const brief = (rows: Row[]) =>
  rows.map((r) => `${r.action} ${r.outcome} ${r.actor_type}:${r.actor_id} -> ${r.target_id}`);
const since = async (workspaceId: string, count: number) => brief((await entriesOf(workspaceId)).slice(count));

describe('the audit log of Surface A and of refused credentials', () => {
  it('records each change made through Surface A once, with its actor, in the change’s own transaction', async () => {
    const s = await login();
    const ws = s.user.workspaceId;
    const before = (await entriesOf(ws)).length;
    const made = await ok('/compute/api-keys/create', { name: 'ci', kind: 'agent' }, s.token);
    const node = await registerNode(made.key);
    const sub = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'false' }, made.key);
    const held = (await pollOne(node))!;
    await ok('/compute/nodes/result', resultOf(node, held, 1), node.nodeKey);
    await ok('/compute/jobs/retry', { job_id: sub.job_id }, s.token);
    await ok('/compute/jobs/cancel', { job_id: sub.job_id }, s.token);
    // A cancel of an ended job changes nothing: Surface A answers 409 and nothing is recorded.
    assert.equal((await post('/compute/jobs/cancel', { job_id: sub.job_id }, s.token)).status, 409);
    await ok('/compute/nodes/drain', { nodeId: node.nodeId, enable: true }, node.nodeKey);
    await ok('/compute/nodes/rotate-key', { nodeId: node.nodeId }, s.token);
    await ok('/compute/api-keys/revoke', { id: made.id }, s.token);
    await ok('/compute/api-keys/revoke', { id: made.id }, s.token); // already revoked: no change, no entry
    // Reads are not changes.
    await ok('/compute/jobs/retrieve', { job_id: sub.job_id }, s.token);

    const user = `user:${s.user.id}`;
    assert.deepEqual(await since(ws, before), [
      `key.create success ${user} -> ${made.id}`,
      `agent.register success key:${made.id} -> ${node.nodeId}`,
      `job.submit success key:${made.id} -> ${sub.job_id}`,
      `job.retry success ${user} -> ${sub.job_id}`,
      `job.cancel success ${user} -> ${sub.job_id}`,
      `agent.drain success node:${node.nodeId} -> ${node.nodeId}`,
      `agent.rotate_key success ${user} -> ${node.nodeId}`,
      `key.revoke success ${user} -> ${made.id}`,
    ]);
    const rows = await entriesOf(ws);
    const submit = rows.find((r) => r.action === 'job.submit')!;
    assert.deepEqual(submit.details, { type: 'COMMAND' });
    assert.ok(submit.ip, 'the client address is recorded');
    assert.equal(rows.find((r) => r.action === 'job.retry')!.details.attempt, 2);
  });

  it('records a member’s attempt at an admin’s work on Surface A as denied, and refuses it with 403', async () => {
    const s = await login();
    const ws = s.user.workspaceId;
    const userKey = await ok('/compute/api-keys/create', { name: 'mine', kind: 'user' }, s.token);
    const node = await registerNode(userKey.key);
    const before = (await entriesOf(ws)).length;
    // Keys act as members: draining or re-keying someone else's node is an admin's.
    const drain = await post('/compute/nodes/drain', { nodeId: node.nodeId, enable: true }, userKey.key);
    assert.equal(drain.status, 403);
    assert.equal(drain.body.code, 'auth.forbidden');
    assert.equal((await post('/compute/nodes/rotate-key', { nodeId: node.nodeId }, userKey.key)).status, 403);
    assert.deepEqual(await since(ws, before), [
      `agent.drain denied key:${userKey.id} -> ${node.nodeId}`,
      `agent.rotate_key denied key:${userKey.id} -> ${node.nodeId}`,
    ]);
    // The node's own key and the owner's session still may.
    await ok('/compute/nodes/drain', { nodeId: node.nodeId, enable: true }, node.nodeKey);
    await ok('/compute/nodes/drain', { nodeId: node.nodeId, enable: false }, s.token);
  });

  it('records refusals of a credential’s kind as denied too, under the action attempted', async () => {
    const s = await login();
    const ws = s.user.workspaceId;
    const userKey = await ok('/compute/api-keys/create', { name: 'mine', kind: 'user' }, s.token);
    const node = await registerNode(userKey.key);
    const token = await v0ok('POST', '/tokens', { token: s.token, body: { name: 'ci', role: 'admin' } });
    const before = (await entriesOf(ws)).length;
    // A node key reaches only its node's protocol; keys are minted from a session; an access
    // token acts in its one workspace and mints neither tokens nor workspaces.
    assert.equal((await post('/compute/jobs/list', {}, node.nodeKey)).status, 403);
    assert.equal((await post('/compute/api-keys/create', { name: 'more' }, userKey.key)).status, 403);
    assert.equal((await v0('POST', '/tokens', { token: token.token, body: { name: 'more' } })).status, 403);
    assert.equal((await v0('POST', '/workspaces', { token: token.token, body: { name: 'elsewhere' } })).status, 403);
    const rows = (await entriesOf(ws)).slice(before);
    assert.deepEqual(
      rows.map((r) => `${r.action} ${r.outcome} ${r.actor_type}:${r.actor_id} -> ${r.target_id}`),
      [
        `job.read denied node:${node.nodeId} -> POST /api/compute/jobs/list`,
        `key.create denied key:${userKey.id} -> POST /api/compute/api-keys/create`,
        `token.create denied token:${token.id} -> POST /v0/tokens`,
        `workspace.create denied token:${token.id} -> POST /v0/workspaces`,
      ],
    );
    assert.ok(rows.every((r) => r.details.status === 403 && typeof r.details.reason === 'string' && r.ip));
  });

  it('records a 401 for a credential of ours that no longer works, and nothing for one we never issued', async () => {
    const { ws, owner, member } = await team();
    const at = { headers: { 'X-Compute-Workspace': ws.id } };
    const before = (await entriesOf(ws.id)).length;

    // A revoked access token.
    const token = await v0ok('POST', '/tokens', { token: owner.token, ...at, body: { name: 'short-lived' } });
    await v0ok('DELETE', `/tokens/${token.id}`, { token: owner.token, ...at, status: 204 });
    assert.equal((await v0('GET', '/workspaces', { token: token.token })).status, 401);
    // A removed member's session.
    await v0ok('DELETE', `/workspaces/${ws.id}/members/${member.user.id}`, { token: owner.token });
    assert.equal(
      (await v0('GET', `/workspaces/${ws.id}/members`, { token: member.token, ...at })).status,
      404,
      'a session of another workspace',
    );
    // An expired session signed by us (for the owner's personal workspace) and a revoked Surface A key.
    const expired = await createTokenIssuer({
      secret: TEST_ENV.JWT_SECRET,
      issuer: 'compute-job-service',
      audience: 'compute-api',
      ttlSeconds: -60,
    }).issue({
      userId: owner.user.id,
      workspaceId: ws.id,
      email: owner.user.email,
    });
    const refusedSession = await v0('POST', '/tokens', { token: expired.token, body: { name: 'late' } });
    assert.equal(refusedSession.status, 401);
    assert.equal(refusedSession.body.code, 'auth.unauthenticated');

    // Never issued: a forged session, a made-up token and key. No entry, whatever they claim.
    const forged = await createTokenIssuer({
      secret: 'not-our-secret-not-our-secret-0123456789',
      issuer: 'compute-job-service',
      audience: 'compute-api',
      ttlSeconds: 60,
    }).issue({
      userId: owner.user.id,
      workspaceId: ws.id,
      email: owner.user.email,
    });
    assert.equal((await v0('GET', '/workspaces', { token: forged.token })).status, 401);
    const madeUp = `${token.token.slice(0, -1)}${token.token.endsWith('a') ? 'b' : 'a'}`;
    assert.equal((await v0('GET', '/workspaces', { token: madeUp })).status, 401);

    const rows = await entriesOf(ws.id);
    assert.deepEqual(brief(rows.slice(before)), [
      `token.create success user:${owner.user.id} -> ${token.id}`,
      `token.revoke success user:${owner.user.id} -> ${token.id}`,
      `request denied token:${token.id} -> ${token.id}`,
      `member.remove success user:${owner.user.id} -> ${member.user.id}`,
      `token.create denied user:${owner.user.id} -> ${owner.user.id}`,
    ]);
    assert.deepEqual(rows.at(-1)!.details, { status: 401, reason: 'expired' });
    assert.deepEqual(rows.at(-3)!.details, { status: 401, reason: 'revoked' });

    // Surface A: a revoked key, refused on a change it attempted.
    const s = await login();
    const key = await ok('/compute/api-keys/create', { name: 'gone' }, s.token);
    await ok('/compute/api-keys/revoke', { id: key.id }, s.token);
    const n = (await entriesOf(s.user.workspaceId)).length;
    assert.equal((await post('/compute/jobs/submit', { type: 'COMMAND', command: 'echo' }, key.key)).status, 401);
    assert.equal(
      (await post('/compute/jobs/submit', { type: 'COMMAND', command: 'echo' }, `${key.key.split('_')[0]}_wrongsecret`))
        .status,
      401,
    );
    assert.deepEqual(await since(s.user.workspaceId, n), [`job.submit denied key:${key.id} -> ${key.id}`]);
  });
});
