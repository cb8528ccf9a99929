import assert from 'node:assert/strict';
import { atLeast, REQUIRED_ROLE, type Role } from '../src/auth/roles';
import { surfaceBOperations } from '../src/http/surface-b';
import { newEmail } from './support/auth';
import { testEnv } from './support/env';
import { team } from './support/team';
import { v0 } from './support/v0';

type Team = Awaited<ReturnType<typeof team>>;
interface Sample {
  /** Path parameters, made fresh for each attempt (a removal needs someone to remove). */
  params?: (t: Team) => Promise<Record<string, string>>;
  body?: () => unknown;
}

// How to call each /v0 operation that acts in a workspace. The table is walked from the routes
// the API mounts: an operation without a sample here fails the test, so no route goes untested.
const SAMPLES: Record<string, Sample> = {
  'get /v0/workspaces/{id}': {},
  'patch /v0/workspaces/{id}': { body: () => ({ name: 'renamed' }) },
  'post /v0/workspaces/{id}/members': { body: () => ({ email: newEmail(), role: 'member' }) },
  'get /v0/workspaces/{id}/members': {},
  'patch /v0/workspaces/{id}/members/{userId}': { params: async (t) => ({ userId: await victim(t) }), body: () => ({ role: 'member' }) },
  'delete /v0/workspaces/{id}/members/{userId}': { params: async (t) => ({ userId: await victim(t) }) },
  'get /v0/workspaces/{id}/audit': {},
  'post /v0/tokens': { body: () => ({ name: 'matrix' }) },
  'get /v0/tokens': {},
  'delete /v0/tokens/{id}': {
    params: async (t) => {
      const made = await v0('POST', '/tokens', { token: t.owner.token, headers: { 'X-Compute-Workspace': t.ws.id }, body: { name: 'to revoke' } });
      return { id: made.body.id };
    },
  },
};

/** A plain member to change or remove. */
async function victim(t: Team): Promise<string> {
  const added = await v0('POST', `/workspaces/${t.ws.id}/members`, { token: t.owner.token, body: { email: newEmail(), role: 'member' } });
  return added.body.userId;
}

describe('the authorization matrix, generated from the route table', () => {
  const operations = () => surfaceBOperations(testEnv().service.services!);

  it('has a sample for every operation that acts in a workspace', () => {
    const missing = operations()
      .filter((op) => op.scope !== 'caller')
      .map((op) => `${op.method} ${op.path}`)
      .filter((k) => !SAMPLES[k]);
    assert.deepEqual(missing, [], 'add these to SAMPLES');
    for (const op of operations()) if (op.scope !== 'caller') assert.ok(op.action !== 'none' && REQUIRED_ROLE[op.action], `${op.method} ${op.path} names its role rule`);
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
        const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name as keyof typeof params]!).replace(/^\/v0/, '');
        const deniedBefore = Number((await db('audit_log').where({ workspace_id: t.ws.id, outcome: 'denied' }).count('* as n').first())!.n);
        const reply = await v0(op.method.toUpperCase(), path, { token: caller.token, body: sample.body?.(), headers: op.scope === 'active' ? { 'X-Compute-Workspace': t.ws.id } : {} });
        const deniedAfter = Number((await db('audit_log').where({ workspace_id: t.ws.id, outcome: 'denied' }).count('* as n').first())!.n);
        const expected = role === null ? 404 : atLeast(role, need) ? 'allowed' : 403;
        const got = reply.status >= 200 && reply.status < 300 ? 'allowed' : reply.status;
        outcomes.push(`${op.method.toUpperCase()} ${op.path} as ${who}: ${got}`);
        assert.equal(got, expected, `${op.method.toUpperCase()} ${op.path} as ${who}: ${reply.status} ${JSON.stringify(reply.body)}`);
        if (expected === 403) assert.equal(reply.body.code, 'auth.forbidden');
        if (expected === 404) assert.equal(reply.body.code, 'resource.not_found');
        // A refusal for the role is an audit entry of the workspace; an outsider's 404 leaves none there.
        assert.equal(deniedAfter - deniedBefore, expected === 403 ? 1 : 0, `${op.method} ${op.path} as ${who}: denied entries`);
      }
    }
    assert.ok(outcomes.length >= 40);
  });
});
