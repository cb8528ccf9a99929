import assert from 'node:assert/strict';
import { apisPerTest } from '../support/api-process';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { newWorkspace } from '../support/http';
import { team } from '../support/team';
import { v0ok } from '../support/v0';

interface Answer {
  status: number;
  type: string;
  version: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One request to a path exactly as written (the support helpers add a prefix of their own). */
async function call(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
  baseUrl = testEnv().url,
): Promise<Answer & { requestId: string | null }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  return {
    status: res.status,
    type,
    version: res.headers.get('x-compute-api-version'),
    requestId: res.headers.get('x-request-id'),
    body: /json/.test(type) && text ? JSON.parse(text) : text,
  };
}

const assertProblem404 = (a: Answer, what: string) => {
  assert.equal(a.status, 404, `${what}: ${JSON.stringify(a.body)}`);
  assert.match(a.type, /^application\/problem\+json/, what);
  assert.equal(a.version, 'v0', what);
  assert.equal(a.body.code, 'resource.not_found', what);
};
const assertEnvelope404 = (a: Answer, what: string) => {
  assert.equal(a.status, 404, `${what}: ${JSON.stringify(a.body)}`);
  assert.match(a.type, /^application\/json/, what);
  assert.equal(a.body.status, 'ERROR', what);
  assert.equal(a.body.code, 'resource.not_found', what);
};

/** The path with one segment upper-cased: 0 is the surface's prefix, 1 the first segment under it. */
const upper = (path: string, segment: number) =>
  path
    .split('/')
    .map((s, i) => (i === segment + 1 ? s.toUpperCase() : s))
    .join('/');

describe('Route case', () => {
  it('binds a workspace named in the path only through the route as spelled: /v0/Workspaces/{id} renames nothing', async () => {
    const s = await login();
    const w1 = await v0ok('POST', '/workspaces', { token: s.token, body: { name: 'one' } });
    const w2 = await v0ok('POST', '/workspaces', { token: s.token, body: { name: 'two' } });
    const auth = { Authorization: `Bearer ${s.token}` };

    const wrong = await call(
      'PATCH',
      `/v0/Workspaces/${w1.id}`,
      { ...auth, 'X-Compute-Workspace': w2.id },
      { name: 'hijacked' },
    );
    assertProblem404(wrong, 'PATCH /v0/Workspaces/{W1} with X-Compute-Workspace: W2');
    const names = async () =>
      Object.fromEntries(
        (await v0ok('GET', '/workspaces', { token: s.token })).items.map((w: { id: string; name: string }) => [
          w.id,
          w.name,
        ]),
      );
    assert.deepEqual([(await names())[w1.id], (await names())[w2.id]], ['one', 'two'], 'neither workspace renamed');

    // Through the route as spelled, the path's workspace wins over the header.
    const right = await call(
      'PATCH',
      `/v0/workspaces/${w1.id}`,
      { ...auth, 'X-Compute-Workspace': w2.id },
      { name: 'renamed' },
    );
    assert.equal(right.status, 200, JSON.stringify(right.body));
    assert.equal(right.body.id, w1.id);
    const after = await names();
    assert.deepEqual([after[w1.id], after[w2.id]], ['renamed', 'two']);
  });

  it('answers a path in the wrong case 404 in its surface format, the version header checked first and never a 500', async () => {
    const s = await login();
    const { key } = await newWorkspace();
    assertProblem404(await call('GET', '/V0/jobs', { Authorization: `Bearer ${s.token}` }), 'GET /V0/jobs');
    assertProblem404(await call('GET', '/v0/Jobs', { Authorization: `Bearer ${s.token}` }), 'GET /v0/Jobs');
    assertEnvelope404(
      await call('POST', '/API/compute/jobs/list', { 'X-API-Key': key }, {}),
      'POST /API/compute/jobs/list',
    );
    assertEnvelope404(
      await call('POST', '/api/compute/Jobs/list', { 'X-API-Key': key }, {}),
      'POST /api/compute/Jobs/list',
    );

    const versioned = await call('GET', '/V0/jobs', {
      Authorization: `Bearer ${s.token}`,
      'X-Compute-API-Version': 'v9',
    });
    assert.notEqual(versioned.status, 500, JSON.stringify(versioned.body));
    assert.doesNotMatch(versioned.type, /text\/plain/);
    assert.match(versioned.type, /^application\/problem\+json/);
    assert.equal(versioned.version, 'v0');
    assert.equal(versioned.body.code, 'version.unsupported');

    // The same paths spelled right still answer.
    assert.equal((await call('GET', '/v0/jobs', { Authorization: `Bearer ${s.token}` })).status, 200);
    assert.equal((await call('POST', '/api/compute/jobs/list', { 'X-API-Key': key }, {})).status, 200);
  });

  it('reaches no route of the table, nor the documents, in the wrong case', async () => {
    const routes = testEnv().service.routes!;
    assert.ok(routes.some((r) => r.path.startsWith('/v0/')) && routes.some((r) => r.path.startsWith('/api/')));
    const paths = [
      ...routes.map((r) => ({ method: r.method.toUpperCase(), path: r.path.replace(/\{(\w+)\}/g, 'x_$1') })),
      ...['/api/openapi.json', '/v0/openapi.json', '/api/docs', '/v0/docs'].map((path) => ({ method: 'GET', path })),
    ];
    for (const { method, path } of paths) {
      for (const segment of [0, 1]) {
        const wrong = upper(path, segment);
        const answer = await call(method, wrong, {}, method === 'GET' || method === 'DELETE' ? undefined : {});
        if (path.startsWith('/v0/')) assertProblem404(answer, `${method} ${wrong}`);
        else assertEnvelope404(answer, `${method} ${wrong}`);
      }
    }
  });
});

describe('Surfaces behind the mount', () => {
  const apiWith = apisPerTest();

  it('keep the request ID and, behind a trusted proxy, the client address on both surfaces', async () => {
    const api = await apiWith({ TRUST_PROXY: 'true' });
    const t = await team();
    const audited = async (ip: string) =>
      testEnv().db('audit_log').where({ workspace_id: t.ws.id, outcome: 'denied', ip }).first('action', 'actor_id');

    // A member is refused an admin's work on each surface: the refusal's entry records the address
    // the proxy names, and the answer carries the request's ID.
    const b = await call(
      'PATCH',
      `/v0/workspaces/${t.ws.id}`,
      { Authorization: `Bearer ${t.member.token}`, 'X-Forwarded-For': '203.0.113.7', 'X-Request-Id': 'route-case-b' },
      { name: 'x' },
      api.url,
    );
    assert.equal(b.status, 403, JSON.stringify(b.body));
    assert.equal(b.requestId, 'route-case-b');
    assert.equal(b.body.requestId, 'route-case-b');
    assert.deepEqual(await audited('203.0.113.7'), { action: 'workspace.update', actor_id: t.member.user.id });

    const headersA = {
      Authorization: `Bearer ${t.member.token}`,
      'X-Compute-Workspace': t.ws.id,
      'X-Forwarded-For': '203.0.113.8',
      'X-Request-Id': 'route-case-a',
    };
    const a = await call('POST', '/api/compute/nodes/drain', headersA, { nodeId: 'node_x' }, api.url);
    assert.equal(a.status, 403, JSON.stringify(a.body));
    assert.equal(a.requestId, 'route-case-a');
    assert.equal(a.body.requestId, 'route-case-a');
    assert.deepEqual(await audited('203.0.113.8'), { action: 'agent.drain', actor_id: t.member.user.id });

    // A path in the wrong case is answered with the request's ID too.
    const wrong = await call('GET', '/V0/jobs', { 'X-Request-Id': 'route-case-404' }, undefined, api.url);
    assert.equal(wrong.status, 404);
    assert.equal(wrong.requestId, 'route-case-404');
    assert.equal(wrong.body.requestId, 'route-case-404');
  });
});
