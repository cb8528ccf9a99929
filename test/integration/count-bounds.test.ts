// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { apisPerTest } from '../support/api-process';
import { login } from '../support/auth';
import { team } from '../support/team';
import { type V0Reply, v0, v0ok } from '../support/v0';

// Every count a workspace (or a user) can grow is bounded by a setting, refused with 409
// resource.conflict and `details.limit`, and the bound holds under concurrent creations.

const refusedAt = (reply: V0Reply, limit: number) => {
  assert.equal(reply.status, 409, JSON.stringify(reply.body));
  assert.equal(reply.body.code, 'resource.conflict');
  assert.equal(reply.body.details?.limit, limit, JSON.stringify(reply.body));
};
const statuses = (replies: V0Reply[]) => replies.map((r) => r.status).sort();

describe('count bounds', () => {
  const apiWith = apisPerTest();

  it('webhook endpoints per workspace: concurrent creations stop at the bound; a deleted one makes room', async () => {
    const api = await apiWith({ WEBHOOK_ENDPOINTS_MAX: '3' });
    const s = await login();
    const at = { token: s.token, baseUrl: api.url };
    const made = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        v0('POST', '/webhooks', { ...at, body: { url: `http://127.0.0.1:9/hook-${i}` } }),
      ),
    );
    assert.deepEqual(statuses(made), [201, 201, 201, 409, 409, 409, 409, 409]);
    for (const r of made.filter((m) => m.status === 409)) refusedAt(r, 3);
    assert.equal((await v0ok('GET', '/webhooks', at)).items.length, 3);
    await v0ok('DELETE', `/webhooks/${made.find((m) => m.status === 201)!.body.id}`, { ...at, status: 204 });
    await v0ok('POST', '/webhooks', { ...at, body: { url: 'http://127.0.0.1:9/again' } });
    refusedAt(await v0('POST', '/webhooks', { ...at, body: { url: 'http://127.0.0.1:9/over' } }), 3);
  });

  it('live access tokens per workspace: revoked and expired ones do not count', async () => {
    const api = await apiWith({ ACCESS_TOKENS_MAX: '2' });
    const s = await login();
    const at = { token: s.token, baseUrl: api.url };
    const made = await Promise.all(
      Array.from({ length: 5 }, (_, i) => v0('POST', '/tokens', { ...at, body: { name: `t${i}` } })),
    );
    assert.deepEqual(statuses(made), [201, 201, 409, 409, 409]);
    for (const r of made.filter((m) => m.status === 409)) refusedAt(r, 2);
    await v0ok('DELETE', `/tokens/${made.find((m) => m.status === 201)!.body.id}`, { ...at, status: 204 });
    await v0ok('POST', '/tokens', { ...at, body: { name: 'after a revoke' } });
    refusedAt(await v0('POST', '/tokens', { ...at, body: { name: 'over' } }), 2);
  });

  it('workspaces a user creates: the personal one does not count, and each user has their own bound', async () => {
    const api = await apiWith({ WORKSPACES_CREATED_MAX: '2' });
    const s = await login();
    const made = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        v0('POST', '/workspaces', { token: s.token, baseUrl: api.url, body: { name: `w${i}` } }),
      ),
    );
    assert.deepEqual(statuses(made), [201, 201, 409, 409, 409, 409]);
    for (const r of made.filter((m) => m.status === 409)) refusedAt(r, 2);
    assert.equal(
      (await v0ok('GET', '/workspaces', { token: s.token, baseUrl: api.url })).items.length,
      3,
      'two created and the personal one',
    );
    const other = await login();
    await v0ok('POST', '/workspaces', { token: other.token, baseUrl: api.url, body: { name: 'theirs' } });
  });

  it('members per workspace', async () => {
    const api = await apiWith({ MEMBERS_MAX: '4' });
    const { ws, owner, outsider } = await team(); // three members
    const at = { token: owner.token, baseUrl: api.url };
    const extra = [outsider, await login(), await login()];
    const added = await Promise.all(
      extra.map((u) =>
        v0('POST', `/workspaces/${ws.id}/members`, { ...at, body: { email: u.user.email, role: 'member' } }),
      ),
    );
    assert.deepEqual(statuses(added), [201, 409, 409]);
    for (const r of added.filter((m) => m.status === 409)) refusedAt(r, 4);
    assert.equal((await v0ok('GET', `/workspaces/${ws.id}/members`, at)).items.length, 4);
  });
});
