// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { team } from '../support/team';
import { v0ok } from '../support/v0';

// The role a caller acts with (CONTRACT §5): a session its membership's; an access token its own
// role capped by its issuer's current one. Every read of a workspace shows that role.
describe('effective role', () => {
  it("shows an access token's capped role in GET /v0/workspaces as in GET /v0/workspaces/{id}, never its issuer's", async () => {
    const { ws, owner, admin } = await team();
    const at = { headers: { 'X-Compute-Workspace': ws.id } };
    const rolesSeenBy = async (token: string) => ({
      listed: (await v0ok('GET', '/workspaces', { token })).items.map((w: { id: string; role: string }) => [
        w.id,
        w.role,
      ]),
      one: (await v0ok('GET', `/workspaces/${ws.id}`, { token })).role,
    });

    const memberToken = await v0ok('POST', '/tokens', {
      token: admin.token,
      ...at,
      body: { name: 'reader', role: 'member' },
    });
    assert.deepEqual(
      await rolesSeenBy(memberToken.token),
      { listed: [[ws.id, 'member']], one: 'member' },
      'the token’s role, not the admin issuer’s',
    );
    // The issuer's session still lists its membership's role in each workspace.
    const sessions = (await v0ok('GET', '/workspaces', { token: admin.token })).items;
    assert.deepEqual(sessions.find((w: { id: string }) => w.id === ws.id)?.role, 'admin');

    // An admin token whose issuer is demoted acts as a member: both reads say so at once.
    const adminToken = await v0ok('POST', '/tokens', {
      token: admin.token,
      ...at,
      body: { name: 'deploy', role: 'admin' },
    });
    assert.deepEqual(await rolesSeenBy(adminToken.token), { listed: [[ws.id, 'admin']], one: 'admin' });
    await v0ok('PATCH', `/workspaces/${ws.id}/members/${admin.user.id}`, {
      token: owner.token,
      body: { role: 'member' },
    });
    assert.deepEqual(
      await rolesSeenBy(adminToken.token),
      { listed: [[ws.id, 'member']], one: 'member' },
      'capped by the issuer’s current role',
    );
  });
});
