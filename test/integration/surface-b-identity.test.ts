import assert from 'node:assert/strict';
import { apisPerTest } from '../support/api-process';
import { login, newEmail } from '../support/auth';
import { testEnv } from '../support/env';
import { newWorkspace } from '../support/http';
import { team } from '../support/team';
import { v0, v0ok } from '../support/v0';

describe('Surface B: the /v0 frame', () => {
  it('answers every error as problem+json with the version header; X-API-Key and other versions are refused by name', async () => {
    const s = await login();
    const check = (reply: Awaited<ReturnType<typeof v0>>, status: number, code: string) => {
      assert.equal(reply.status, status, JSON.stringify(reply.body));
      assert.match(reply.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(reply.headers.get('x-compute-api-version'), 'v0');
      assert.equal(reply.body.code, code);
      assert.equal(reply.body.status, status);
      assert.equal(reply.body.type, `/v0/docs#problem-${code}`);
      assert.equal(typeof reply.body.title, 'string');
      assert.equal(typeof reply.body.detail, 'string');
      assert.ok(!JSON.stringify(reply.body).includes('    at '), 'no stack trace');
    };
    const anonymous = await v0('GET', '/workspaces');
    check(anonymous, 401, 'auth.unauthenticated');
    assert.match(anonymous.body.detail, /Authorization: Bearer/);
    assert.doesNotMatch(anonymous.body.detail, /X-API-Key/);
    const { key } = await newWorkspace();
    const withKey = await v0('GET', '/workspaces', { headers: { 'X-API-Key': key } });
    check(withKey, 401, 'auth.unauthenticated');
    assert.match(withKey.body.detail, /X-API-Key/);
    check(await v0('GET', '/workspaces', { token: 'not-a-token' }), 401, 'auth.unauthenticated');
    check(await v0('GET', '/workspaces', { token: 'cpat_x' }), 401, 'auth.unauthenticated');
    check(
      await v0('GET', '/workspaces', { token: s.token, headers: { 'X-Compute-API-Version': 'v1' } }),
      400,
      'version.unsupported',
    );
    check(await v0('GET', '/nothing-here', { token: s.token }), 404, 'resource.not_found');
    const bad = await v0('POST', '/workspaces', {
      token: s.token,
      body: { name: '', defaultRegion: 'Not Valid', extra: 1 },
    });
    check(bad, 400, 'request.invalid');
    assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), ['defaultRegion', 'extra', 'name']);
    check(await v0('POST', '/workspaces', { token: s.token, body: '{"name": ' }), 400, 'request.invalid');
    check(
      await v0('GET', '/workspaces', { token: s.token, headers: { 'X-Compute-Workspace': 'nope' } }),
      400,
      'request.invalid',
    );
    check(await v0('GET', '/workspaces?pageSize=500', { token: s.token }), 400, 'request.invalid');
    // Success carries the version too, and `v0` is taken explicitly.
    const fine = await v0('GET', '/workspaces', { token: s.token, headers: { 'X-Compute-API-Version': 'v0' } });
    assert.equal(fine.status, 200);
    assert.equal(fine.headers.get('x-compute-api-version'), 'v0');
  });

  it('serves one OpenAPI document listing every /v0 operation of the route table', async () => {
    const doc = (await (await fetch(`${testEnv().url}/v0/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
      components: { schemas: Record<string, unknown> };
    };
    const paths = Object.keys(doc.paths);
    for (const p of [
      '/v0/workspaces',
      '/v0/workspaces/{id}',
      '/v0/workspaces/{id}/members',
      '/v0/workspaces/{id}/members/{userId}',
      '/v0/workspaces/{id}/audit',
      '/v0/tokens',
      '/v0/tokens/{id}',
    ]) {
      assert.ok(paths.includes(p), `${p} documented`);
    }
    assert.ok(doc.paths['/api/compute/jobs/submit'], 'and Surface A beside it');
    assert.ok(doc.components.schemas.Problem);
  });
});

describe('Surface B: workspaces and members', () => {
  it('creates a workspace with the caller as owner, lists it with the role, updates it as admin', async () => {
    const s = await login();
    const ws = await v0ok('POST', '/workspaces', {
      token: s.token,
      body: { name: 'alpha', defaultRegion: 'eu-west-1' },
    });
    assert.match(ws.id, /^ws_/);
    assert.deepEqual(
      { ...ws, id: undefined, createdAt: undefined },
      { id: undefined, createdAt: undefined, name: 'alpha', defaultRegion: 'eu-west-1', plan: 'hobby', role: 'owner' },
    );
    const listed = await v0ok('GET', '/workspaces', { token: s.token });
    assert.deepEqual(
      listed.items.map((w: { id: string; role: string }) => [w.id, w.role]).sort(),
      [
        [s.user.workspaceId, 'owner'],
        [ws.id, 'owner'],
      ].sort(),
    );
    assert.equal(listed.nextPageToken, null);
    const renamed = await v0ok('PATCH', `/workspaces/${ws.id}`, { token: s.token, body: { name: 'beta' } });
    assert.equal(renamed.name, 'beta');
    assert.equal(renamed.defaultRegion, 'eu-west-1');
    // Pages: one at a time, every workspace once.
    const first = await v0ok('GET', '/workspaces?pageSize=1', { token: s.token });
    const second = await v0ok('GET', `/workspaces?pageSize=1&pageToken=${first.nextPageToken}`, { token: s.token });
    assert.equal(second.nextPageToken, null);
    assert.notEqual(first.items[0].id, second.items[0].id);
  });

  it('invites by e-mail (the account is made, usable at first login), and keeps the role rules', async () => {
    const { ws, owner, admin, member, outsider } = await team();
    // An address without an account.
    const email = newEmail().toLowerCase();
    const invited = await v0ok('POST', `/workspaces/${ws.id}/members`, {
      token: admin.token,
      body: { email, role: 'member' },
    });
    assert.equal(invited.email, email);
    assert.equal(invited.role, 'member');
    const later = await login(email);
    assert.equal(later.user.id, invited.userId);
    const theirs = await v0ok('GET', '/workspaces', { token: later.token });
    assert.deepEqual(
      theirs.items.map((w: { id: string; role: string }) => [w.id, w.role]).sort(),
      [
        [later.user.workspaceId, 'owner'],
        [ws.id, 'member'],
      ].sort(),
    );

    // A member does no admin's work; an admin no owner's; an outsider learns nothing.
    assert.equal((await v0('PATCH', `/workspaces/${ws.id}`, { token: member.token, body: { name: 'x' } })).status, 403);
    assert.equal(
      (
        await v0('POST', `/workspaces/${ws.id}/members`, {
          token: member.token,
          body: { email: newEmail(), role: 'member' },
        })
      ).status,
      403,
    );
    assert.equal(
      (
        await v0('POST', `/workspaces/${ws.id}/members`, {
          token: admin.token,
          body: { email: newEmail(), role: 'admin' },
        })
      ).status,
      403,
    );
    assert.equal(
      (
        await v0('PATCH', `/workspaces/${ws.id}/members/${admin.user.id}`, {
          token: admin.token,
          body: { role: 'member' },
        })
      ).status,
      403,
    );
    assert.equal(
      (await v0('DELETE', `/workspaces/${ws.id}/members/${owner.user.id}`, { token: admin.token })).status,
      403,
    );
    for (const [method, path] of [
      ['GET', `/workspaces/${ws.id}`],
      ['GET', `/workspaces/${ws.id}/members`],
      ['PATCH', `/workspaces/${ws.id}`],
    ]) {
      const r = await v0(method, path, { token: outsider.token, body: method === 'PATCH' ? { name: 'x' } : undefined });
      assert.equal(r.status, 404, `${method} ${path} by an outsider`);
    }
    // The header cannot reach a workspace the caller is not in.
    assert.equal(
      (await v0('GET', '/tokens', { token: outsider.token, headers: { 'X-Compute-Workspace': ws.id } })).status,
      404,
    );
    // An admin changes a member; an owner makes an admin.
    assert.equal(
      (
        await v0ok('PATCH', `/workspaces/${ws.id}/members/${member.user.id}`, {
          token: owner.token,
          body: { role: 'admin' },
        })
      ).role,
      'admin',
    );
    assert.equal(
      (await v0('PATCH', `/workspaces/${ws.id}`, { token: member.token, body: { name: 'now allowed' } })).status,
      200,
      'the new role holds at once',
    );
    assert.equal(
      (
        await v0ok('PATCH', `/workspaces/${ws.id}/members/${member.user.id}`, {
          token: owner.token,
          body: { role: 'member' },
        })
      ).role,
      'member',
    );
    assert.equal(
      (await v0('PATCH', `/workspaces/${ws.id}`, { token: member.token, body: { name: 'no longer' } })).status,
      403,
      'and the demotion',
    );
    // Adding someone twice is a conflict.
    assert.equal(
      (
        await v0('POST', `/workspaces/${ws.id}/members`, {
          token: owner.token,
          body: { email: member.user.email, role: 'member' },
        })
      ).status,
      409,
    );
  });

  it('always keeps an owner, under concurrent changes too', async () => {
    const { ws, owner, admin } = await team();
    const alone = await v0('PATCH', `/workspaces/${ws.id}/members/${owner.user.id}`, {
      token: owner.token,
      body: { role: 'admin' },
    });
    assert.equal(alone.status, 409);
    assert.equal(alone.body.code, 'resource.conflict');
    assert.equal(
      (await v0('DELETE', `/workspaces/${ws.id}/members/${owner.user.id}`, { token: owner.token })).status,
      409,
    );
    // Two owners each step down at once: exactly one succeeds.
    await v0ok('PATCH', `/workspaces/${ws.id}/members/${admin.user.id}`, {
      token: owner.token,
      body: { role: 'owner' },
    });
    const both = await Promise.all([
      v0('PATCH', `/workspaces/${ws.id}/members/${owner.user.id}`, { token: owner.token, body: { role: 'member' } }),
      v0('PATCH', `/workspaces/${ws.id}/members/${admin.user.id}`, { token: admin.token, body: { role: 'member' } }),
    ]);
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
    const owners = await testEnv().db('workspace_members').where({ workspace_id: ws.id, role: 'owner' });
    assert.equal(owners.length, 1);
  });

  it('removing a member ends their session access and their keys and tokens in the workspace at once', async () => {
    const { ws, owner, admin } = await team();
    const token = (
      await v0ok('POST', '/tokens', {
        token: admin.token,
        headers: { 'X-Compute-Workspace': ws.id },
        body: { name: 'ci', role: 'admin' },
      })
    ).token;
    assert.equal((await v0('GET', '/tokens', { token })).status, 200);
    assert.equal((await v0('GET', `/workspaces/${ws.id}/members`, { token: admin.token })).status, 200);
    await v0ok('DELETE', `/workspaces/${ws.id}/members/${admin.user.id}`, { token: owner.token });
    assert.equal(
      (await v0('GET', `/workspaces/${ws.id}/members`, { token: admin.token })).status,
      404,
      'the session no longer reaches it',
    );
    assert.equal((await v0('GET', '/tokens', { token })).status, 401, 'the token is dead');
    const row = await testEnv()
      .db('api_keys')
      .where({ user_id: admin.user.id, workspace_id: ws.id, kind: 'token' })
      .first();
    assert.ok(row.revoked_at, 'and revoked, not only refused');
  });
});

describe('Surface B: personal access tokens', () => {
  const apiWith = apisPerTest();

  it('issues (admin, from a session), uses, lists without secrets, and revokes at once on another instance', async () => {
    const { ws, owner, admin, member } = await team();
    const other = await apiWith();
    const at = { headers: { 'X-Compute-Workspace': ws.id } };
    assert.equal(
      (await v0('POST', '/tokens', { token: member.token, ...at, body: { name: 'x' } })).status,
      403,
      'a member issues none',
    );
    assert.equal(
      (await v0('POST', '/tokens', { token: admin.token, ...at, body: { name: 'x', role: 'owner' } })).status,
      403,
      'no role above the issuer’s',
    );
    const made = await v0ok('POST', '/tokens', {
      token: owner.token,
      ...at,
      body: { name: 'deploy', role: 'admin', expiresInDays: 30 },
    });
    assert.match(made.token, /^cpat_[0-9a-zA-Z]{42}$/);
    assert.equal(made.role, 'admin');
    assert.equal(made.workspaceId, ws.id);
    assert.ok(Math.abs(new Date(made.expiresAt).getTime() - Date.now() - 30 * 86_400_000) < 60_000);
    // It acts in its workspace without a header, on any instance.
    const seen = await v0ok('GET', `/workspaces/${ws.id}`, { token: made.token, baseUrl: other.url });
    assert.equal(seen.role, 'admin');
    const listed = await v0ok('GET', '/tokens', { token: made.token });
    assert.ok(listed.items.some((t: { id: string }) => t.id === made.id));
    assert.ok(!JSON.stringify(listed).includes(made.token.slice(15)), 'no secret in the list');
    // Only in its own workspace; and it cannot mint successors.
    assert.equal(
      (await v0('GET', '/tokens', { token: made.token, headers: { 'X-Compute-Workspace': owner.user.workspaceId } }))
        .status,
      404,
    );
    assert.equal((await v0('POST', '/tokens', { token: made.token, body: { name: 'child' } })).status, 403);
    assert.equal((await v0('POST', '/workspaces', { token: made.token, body: { name: 'elsewhere' } })).status, 403);
    const stored = await testEnv().db('api_keys').where({ id: made.id }).first();
    assert.ok(!JSON.stringify(stored).includes(made.token.slice(15)), 'stored hashed');

    // Warm the other instance's cache, then revoke through this one.
    assert.equal((await v0('GET', '/tokens', { token: made.token, baseUrl: other.url })).status, 200);
    await v0ok('DELETE', `/tokens/${made.id}`, { token: owner.token, ...at, status: 204 });
    assert.equal((await v0('GET', '/tokens', { token: made.token, baseUrl: other.url })).status, 401);
    assert.equal((await v0('GET', '/tokens', { token: made.token })).status, 401);
    await v0ok('DELETE', `/tokens/${made.id}`, { token: owner.token, ...at, status: 204 }); // idempotent
  });

  it('caps a token by its issuer’s current role, and refuses it once expired', async () => {
    const { ws, owner, admin } = await team();
    const made = await v0ok('POST', '/tokens', {
      token: admin.token,
      headers: { 'X-Compute-Workspace': ws.id },
      body: { name: 'cap', role: 'admin' },
    });
    assert.equal(
      (await v0('PATCH', `/workspaces/${ws.id}`, { token: made.token, body: { name: 'by token' } })).status,
      200,
    );
    await v0ok('PATCH', `/workspaces/${ws.id}/members/${admin.user.id}`, {
      token: owner.token,
      body: { role: 'member' },
    });
    assert.equal(
      (await v0('PATCH', `/workspaces/${ws.id}`, { token: made.token, body: { name: 'by token' } })).status,
      403,
      'the issuer is a member now',
    );
    assert.equal((await v0('GET', `/workspaces/${ws.id}`, { token: made.token })).body.role, 'member');

    const short = await v0ok('POST', '/tokens', {
      token: owner.token,
      headers: { 'X-Compute-Workspace': ws.id },
      body: { name: 'short', expiresInDays: 1 },
    });
    assert.equal((await v0('GET', '/tokens', { token: short.token })).status, 200);
    // A day passes (the clock is the database's: the expiry is moved instead).
    await testEnv()
      .db('api_keys')
      .where({ id: short.id })
      .update({ expires_at: testEnv().db.raw("now() - interval '1 second'") });
    await testEnv().service.services!.credentials.settle();
    assert.equal((await v0('GET', '/tokens', { token: short.token })).status, 401);
  });
});
