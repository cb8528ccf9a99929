import assert from 'node:assert/strict';
import { createApiKey } from '../../src/auth/api-keys';
import { newId } from '../../src/shared/ids';
import { atLeast, REQUIRED_ROLE, type Role } from '../../src/auth/roles';
import { storedArtifact } from '../support/artifacts';
import { login, newEmail } from '../support/auth';
import { testEnv } from '../support/env';
import { credentialHeaders, ok, pollOne, post, registerNode, resultOf } from '../support/http';
import { team } from '../support/team';
import { v0 } from '../support/v0';

type Team = Awaited<ReturnType<typeof team>>;
interface Sample {
  /** Path parameters, made fresh for each attempt (a removal needs someone to remove). */
  params?: (t: Team) => Promise<Record<string, string>>;
  body?: () => unknown;
}

// How to call each /v0 operation that acts in a workspace. The table is walked from the routes
// the API mounts: an operation without a sample here fails the test, so no route goes untested.
/** A job queued in the team's workspace (no agent takes it). */
async function teamJob(t: Team): Promise<Record<string, string>> {
  const made = await v0('POST', '/jobs', {
    token: t.owner.token,
    headers: { 'X-Compute-Workspace': t.ws.id },
    body: { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return { id: made.body.id };
}
/** An agent registered in the team's workspace (with an operator's key there, as Surface A registers). */
async function teamAgent(t: Team): Promise<Record<string, string>> {
  const { key } = await createApiKey(testEnv().db, { workspaceId: t.ws.id, name: 'ops', kind: 'user' });
  return { id: (await registerNode(key)).nodeId };
}

/**
 * A webhook endpoint of the team's workspace (nothing listens at it). The matrix makes one per
 * call: those of earlier calls are retired first, so the workspace stays under its endpoint bound.
 */
async function teamWebhook(t: Team): Promise<Record<string, string>> {
  await testEnv()
    .db('webhooks')
    .where({ workspace_id: t.ws.id })
    .whereNull('deleted_at')
    .update({ deleted_at: testEnv().db.fn.now() });
  const made = await v0('POST', '/webhooks', {
    token: t.owner.token,
    headers: { 'X-Compute-Workspace': t.ws.id },
    body: { url: 'http://127.0.0.1:9/matrix', events: ['job.terminal'] },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return { id: made.body.id };
}
/** A logged delivery of such an endpoint, to redeliver (written as the delivery activity writes one). */
async function teamDelivery(t: Team): Promise<Record<string, string>> {
  const { id } = await teamWebhook(t);
  const deliveryId = newId('dlv');
  await testEnv()
    .db('webhook_deliveries')
    .insert({
      id: deliveryId,
      webhook_id: id,
      event_id: newId('evt'),
      event_seq: 0,
      job_id: 'job_matrix',
      event_type: 'job.terminal',
      attempt: 1,
      status: 'failed',
      error: 'connection refused',
      duration_ms: 1,
    });
  return { id, deliveryId };
}

const SAMPLES: Record<string, Sample> = {
  'post /v0/jobs': { body: () => ({ type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } }) },
  'get /v0/jobs': {},
  'get /v0/jobs/{id}': { params: teamJob },
  'post /v0/jobs/{id}:cancel': { params: teamJob },
  'get /v0/jobs/{id}/logs': { params: teamJob },
  'get /v0/jobs/{id}/attempts': { params: teamJob },
  'get /v0/agents': {},
  'get /v0/agents/{id}': { params: teamAgent },
  'post /v0/agents/{id}:drain': { params: teamAgent, body: () => ({ deadlineSeconds: 60 }) },
  'delete /v0/agents/{id}': { params: teamAgent },
  'get /v0/workspaces/{id}': {},
  'patch /v0/workspaces/{id}': { body: () => ({ name: 'renamed' }) },
  'post /v0/workspaces/{id}/members': { body: () => ({ email: newEmail(), role: 'member' }) },
  'get /v0/workspaces/{id}/members': {},
  'patch /v0/workspaces/{id}/members/{userId}': {
    params: async (t) => ({ userId: await victim(t) }),
    body: () => ({ role: 'member' }),
  },
  'delete /v0/workspaces/{id}/members/{userId}': { params: async (t) => ({ userId: await victim(t) }) },
  'get /v0/workspaces/{id}/audit': {},
  'post /v0/tokens': { body: () => ({ name: 'matrix' }) },
  'get /v0/tokens': {},
  'post /v0/webhooks': { body: () => ({ url: 'http://127.0.0.1:9/matrix' }) },
  'get /v0/webhooks': {},
  'get /v0/webhooks/{id}': { params: teamWebhook },
  'delete /v0/webhooks/{id}': { params: teamWebhook },
  'post /v0/webhooks/{id}:rotate-secret': { params: teamWebhook },
  'get /v0/webhooks/{id}/deliveries': { params: teamWebhook },
  'post /v0/webhooks/{id}/deliveries/{deliveryId}:redeliver': { params: teamDelivery },
  'get /v0/billing/usage': {},
  'get /v0/billing/limits': {},
  'patch /v0/billing/limits': { body: () => ({ softCapUsd: 100 }) },
  // On a plan with invoices (hobby's answer is billing.not_available, whatever the role).
  'get /v0/billing/invoices': {
    params: async (t) => {
      await testEnv().db('workspaces').where({ id: t.ws.id }).update({ plan: 'team' });
      return {};
    },
  },
  'delete /v0/tokens/{id}': {
    params: async (t) => {
      const made = await v0('POST', '/tokens', {
        token: t.owner.token,
        headers: { 'X-Compute-Workspace': t.ws.id },
        body: { name: 'to revoke' },
      });
      return { id: made.body.id };
    },
  },
};

/** A plain member to change or remove. */
async function victim(t: Team): Promise<string> {
  const added = await v0('POST', `/workspaces/${t.ws.id}/members`, {
    token: t.owner.token,
    body: { email: newEmail(), role: 'member' },
  });
  return added.body.userId;
}

describe('the authorization matrix, generated from the route table', () => {
  const operations = () => testEnv().service.routes!.filter((r) => r.path.startsWith('/v0/'));

  it('has a sample for every operation that acts in a workspace', () => {
    const missing = operations()
      .filter((op) => op.scope !== 'caller')
      .map((op) => `${op.method} ${op.path}`)
      .filter((k) => !SAMPLES[k]);
    assert.deepEqual(missing, [], 'add these to SAMPLES');
    for (const op of operations())
      if (op.scope !== 'caller')
        assert.ok(op.action !== 'none' && REQUIRED_ROLE[op.action], `${op.method} ${op.path} names its role rule`);
  });

  it('owner, admin, member and an outsider × two workspaces × every route: 404 outside, 403 below the role, allowed at it', async function () {
    this.timeout(120_000);
    const [t, other] = [await team(), await team()];
    const db = testEnv().db;
    const outcomes: string[] = [];
    for (const op of operations().filter((o) => o.scope !== 'caller')) {
      const sample = SAMPLES[`${op.method} ${op.path}`];
      const need = REQUIRED_ROLE[op.action as keyof typeof REQUIRED_ROLE];
      const callers: Array<[string, { token: string }, Role | null]> = [
        ['owner', t.owner, 'owner'],
        ['admin', t.admin, 'admin'],
        ['member', t.member, 'member'],
        ['outsider', t.outsider, null],
        ['owner of another workspace', other.owner, null],
      ];
      for (const [who, caller, role] of callers) {
        const params = { id: t.ws.id, ...(await sample.params?.(t)) };
        const path = op.path
          .replace(/\{(\w+)\}/g, (_, name: string) => params[name as keyof typeof params]!)
          .replace(/^\/v0/, '');
        const deniedBefore = Number(
          (await db('audit_log').where({ workspace_id: t.ws.id, outcome: 'denied' }).count('* as n').first())!.n,
        );
        const reply = await v0(op.method.toUpperCase(), path, {
          token: caller.token,
          body: sample.body?.(),
          headers: op.scope === 'active' ? { 'X-Compute-Workspace': t.ws.id } : {},
        });
        const deniedAfter = Number(
          (await db('audit_log').where({ workspace_id: t.ws.id, outcome: 'denied' }).count('* as n').first())!.n,
        );
        const expected = role === null ? 404 : atLeast(role, need) ? 'allowed' : 403;
        const got = reply.status >= 200 && reply.status < 300 ? 'allowed' : reply.status;
        outcomes.push(`${op.method.toUpperCase()} ${op.path} as ${who}: ${got}`);
        assert.equal(
          got,
          expected,
          `${op.method.toUpperCase()} ${op.path} as ${who}: ${reply.status} ${JSON.stringify(reply.body)}`,
        );
        if (expected === 403) assert.equal(reply.body.code, 'auth.forbidden');
        if (expected === 404) assert.equal(reply.body.code, 'resource.not_found');
        // A refusal for the role is an audit entry of the workspace; an outsider's 404 leaves none there.
        assert.equal(
          deniedAfter - deniedBefore,
          expected === 403 ? 1 : 0,
          `${op.method} ${op.path} as ${who}: denied entries`,
        );
      }
    }
    assert.ok(outcomes.length >= 40);
  });
});

// Surface A: sessions act in the user's personal workspace as its owner, a user's keys act as
// members, an operator's key (no user) as an admin, a node key for its own node only.
type Node = { nodeId: string; nodeKey: string };
interface Fixture {
  ws: string;
  owner: string;
  /** The owner's own key: a member's rights. */
  memberKey: string;
  adminKey: string;
  freshNode(): Promise<Node>;
}
/** A request to make, and the node it concerns (whose key then calls it as "node key"). */
type Made = { body: Record<string, unknown>; node?: Node };
type SampleA = (f: Fixture, caller: string) => Promise<Made>;

// Jobs no node of the test takes, except the one made to hold it (by a label of its own).
const UNTAKEN = { type: 'COMMAND', command: 'echo', selector: { pool: 'nobody' } };
let slot = 0;
const heldBy = async (f: Fixture) => {
  const label = `slot-${slot++}`;
  const node = await registerNode(f.owner, { pool: label });
  const job = await ok('/compute/jobs/submit', { ...UNTAKEN, selector: { pool: label } }, f.owner);
  const held = (await pollOne(node, 2))!;
  assert.equal(held.job_id, job.job_id);
  return { node, held };
};
const queuedJob = async (f: Fixture) => ({
  body: { job_id: (await ok('/compute/jobs/submit', UNTAKEN, f.owner)).job_id },
});

const SAMPLES_A: Record<string, SampleA> = {
  'post /api/compute/jobs/submit': async () => ({ body: UNTAKEN }),
  'post /api/compute/jobs/retrieve': queuedJob,
  'post /api/compute/jobs/list': async () => ({ body: {} }),
  'post /api/compute/jobs/cancel': queuedJob,
  'post /api/compute/jobs/retry': async (f) => {
    const { node, held } = await heldBy(f);
    await ok('/compute/nodes/result', resultOf(node, held, 1), node.nodeKey);
    return { body: { job_id: held.job_id } };
  },
  'get /api/compute/jobs/{jobId}/logs': queuedJob,
  'post /api/compute/jobs/artifacts/presign-upload': queuedJob,
  'post /api/compute/jobs/artifacts/presign-download': async (f) => {
    const { body } = await queuedJob(f);
    const { id } = await storedArtifact(f.owner, body.job_id, Buffer.from('x'));
    return { body: { ...body, id } };
  },
  'post /api/compute/nodes/register': async () => ({ body: { name: 'matrix', labels: {} } }),
  'post /api/compute/nodes/heartbeat': async (f) => {
    const node = await f.freshNode();
    return { body: { nodeId: node.nodeId, runningJobs: [] }, node };
  },
  'post /api/compute/nodes/poll': async (f) => {
    const node = await f.freshNode();
    return { body: { nodeId: node.nodeId, waitSeconds: 0 }, node };
  },
  'post /api/compute/nodes/logs': async (f) => {
    const { node, held } = await heldBy(f);
    return {
      body: {
        nodeId: node.nodeId,
        job_id: held.job_id,
        leaseId: held.leaseId,
        lines: [{ seq: 1, stream: 'stdout', line: 'x', ts: new Date().toISOString() }],
      },
      node,
    };
  },
  'post /api/compute/nodes/result': async (f) => {
    const { node, held } = await heldBy(f);
    return { body: resultOf(node, held, 0), node };
  },
  'post /api/compute/nodes/drain': async (f) => {
    const node = await f.freshNode();
    return { body: { nodeId: node.nodeId, enable: true }, node };
  },
  'post /api/compute/nodes/list': async () => ({ body: {} }),
  'post /api/compute/nodes/rotate-key': async (f) => {
    const node = await f.freshNode();
    return { body: { nodeId: node.nodeId }, node };
  },
  'post /api/compute/api-keys/create': async () => ({ body: { name: 'matrix' } }),
  'post /api/compute/api-keys/list': async () => ({ body: {} }),
  'post /api/compute/billing/plans/list': async () => ({ body: {} }),
  'post /api/compute/billing/subscription': async () => ({ body: {} }),
  'post /api/compute/billing/checkout/create': async () => ({
    body: { plan: 'payg', successUrl: 'https://app.example/done', cancelUrl: 'https://app.example/' },
  }),
  // A key the caller's own listing holds: the owner's (a session, or the owner's key), else an operator's.
  'post /api/compute/api-keys/revoke': async (f, caller) => {
    if (caller === 'admin key')
      return { body: { id: (await createApiKey(testEnv().db, { workspaceId: f.ws, name: 'ops', kind: 'user' })).id } };
    return { body: { id: (await ok('/compute/api-keys/create', { name: 'to revoke' }, f.owner)).id } };
  },
};

async function fixtureA(): Promise<Fixture> {
  const s = await login();
  const memberKey = (await ok('/compute/api-keys/create', { name: 'member' }, s.token)).key;
  const adminKey = (
    await createApiKey(testEnv().db, { workspaceId: s.user.workspaceId, name: 'operator', kind: 'user' })
  ).key;
  return { ws: s.user.workspaceId, owner: s.token, memberKey, adminKey, freshNode: () => registerNode(s.token) };
}

describe('the authorization matrix of Surface A, generated from the route table', () => {
  const routesA = () => testEnv().service.routes!.filter((r) => r.path.startsWith('/api/') && r.action !== 'none');

  it('has a sample and a role rule for every Surface A route that takes a credential', () => {
    const routes = routesA();
    assert.ok(routes.length >= 18, `${routes.length} routes`);
    assert.deepEqual(
      routes.map((r) => `${r.method} ${r.path}`).filter((k) => !SAMPLES_A[k]),
      [],
      'add these to SAMPLES_A',
    );
    for (const r of routes)
      assert.ok(REQUIRED_ROLE[r.action as keyof typeof REQUIRED_ROLE], `${r.path} names its role rule`);
  });

  it('owner session, admin key, member key, node key and an outsider: 404 outside, 403 below the role, allowed at it', async function () {
    this.timeout(180_000);
    const f = await fixtureA();
    const outsider = await login();
    const db = testEnv().db;
    let calls = 0;
    for (const route of routesA()) {
      const need = REQUIRED_ROLE[route.action as keyof typeof REQUIRED_ROLE];
      const takesId = /job_id|nodeId|\{jobId\}|\bid\b/.test(
        JSON.stringify((await SAMPLES_A[`${route.method} ${route.path}`](f, 'owner')).body) + route.path,
      );
      const callers: Array<[string, Role | 'node' | null]> = [
        ['owner', 'owner'],
        ['admin key', 'admin'],
        ['member key', 'member'],
        ['node key', 'node'],
        ['outsider', null],
      ];
      for (const [who, role] of callers) {
        const made = await SAMPLES_A[`${route.method} ${route.path}`](f, who);
        const credential = {
          owner: f.owner,
          'admin key': f.adminKey,
          'member key': f.memberKey,
          outsider: outsider.token,
          'node key': made.node?.nodeKey ?? (await f.freshNode()).nodeKey,
        }[who]!;
        const deniedBefore = Number(
          (await db('audit_log').where({ workspace_id: f.ws, outcome: 'denied' }).count('* as n').first())!.n,
        );
        const reply =
          route.method === 'get'
            ? await fetch(`${testEnv().url}${route.path.replace('{jobId}', made.body.job_id as string)}?follow=false`, {
                headers: credentialHeaders(credential),
              }).then(async (r) => ({
                status: r.status,
                body: r.headers.get('content-type')?.includes('json') ? await r.json() : await r.text(),
              }))
            : await post(route.path.replace(/^\/api/, ''), made.body, credential);
        const deniedAfter = Number(
          (await db('audit_log').where({ workspace_id: f.ws, outcome: 'denied' }).count('* as n').first())!.n,
        );
        let expected: 'allowed' | 403 | 404;
        if (role === 'node') expected = route.nodeKey ? 'allowed' : 403;
        else if (route.sessionOnly && who !== 'owner' && who !== 'outsider') expected = 403;
        else if (role === null) expected = takesId ? 404 : 'allowed';
        else expected = atLeast(role, need) ? 'allowed' : 403;
        const got = reply.status >= 200 && reply.status < 300 ? 'allowed' : reply.status;
        assert.equal(
          got,
          expected,
          `${route.method.toUpperCase()} ${route.path} as ${who}: ${reply.status} ${JSON.stringify(reply.body)}`,
        );
        if (expected === 403) assert.equal(reply.body.code, 'auth.forbidden');
        if (expected === 404) assert.equal(reply.body.code, 'resource.not_found');
        // Every 403 is one audit entry: below the role, a node key off its node, a key where only a session will do.
        assert.equal(deniedAfter - deniedBefore, expected === 403 ? 1 : 0, `${route.path} as ${who}: denied entries`);
        calls++;
      }
    }
    assert.ok(calls >= 90, `${calls} calls`);
  });
});
