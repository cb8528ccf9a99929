// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { createApiKey } from '../../src/auth/api-keys';
import { waitFor } from '../support/agents';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { pollOne, post, registerNode } from '../support/http';
import { team } from '../support/team';
import { v0, v0ok } from '../support/v0';

// Removing a member takes everything they brought along (CONTRACT §5), decided on the rows read
// under the workspace's lock; and a user removed even from their personal workspace is not
// locked out of the service.

const db = () => testEnv().db;
/** Surface A in the team's workspace, as a session that names it. */
const inWs = (ws: string, token: string) => ({ 'X-Compute-Workspace': ws, Authorization: `Bearer ${token}` });

async function postA(path: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${testEnv().url}/api${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { payload?: Record<string, unknown>; code?: string } };
}

describe('removing a member', () => {
  it('deregisters the agents registered through their session and keys: node keys refused at once, running jobs requeued, the rest stay', async () => {
    const { ws, owner, member } = await team();
    const wsId = ws.id as string;
    // The member's agents: one registered with their session, one with a key they minted.
    const bySession = (
      await postA(
        '/compute/nodes/register',
        { name: 'by-session', labels: { who: 'member' } },
        inWs(wsId, member.token),
      )
    ).body.payload!;
    const minted = await postA('/compute/api-keys/create', { name: 'fleet', kind: 'agent' }, inWs(wsId, member.token));
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    const memberKey = minted.body.payload!.key as string;
    const byKey = await registerNode(memberKey, { who: 'member-key' }, 'by-key');
    // Agents that stay: the owner's, and one registered with a key of the workspace's own.
    const byOwner = (
      await postA('/compute/nodes/register', { name: 'by-owner', labels: { who: 'owner' } }, inWs(wsId, owner.token))
    ).body.payload!;
    const { key: workspaceKey } = await createApiKey(db(), { workspaceId: wsId, name: 'ops', kind: 'agent' });
    const byWorkspace = await registerNode(workspaceKey, { who: 'workspace' }, 'by-workspace');

    // The member's session node runs a job that carries a secret.
    const job = await v0ok('POST', '/jobs', {
      token: owner.token,
      headers: { 'X-Compute-Workspace': wsId },
      body: { type: 'COMMAND', command: 'sleep 600', env: { SECRET: 's3cr3t' }, selector: { who: 'member' } },
    });
    const held = (await pollOne({ nodeId: bySession.nodeId as string, nodeKey: bySession.apiKey as string }))!;
    assert.equal(held.job_id, job.id);

    const removed = await v0ok('DELETE', `/workspaces/${wsId}/members/${member.user.id}`, { token: owner.token });
    assert.equal(removed.userId, member.user.id);
    assert.equal(removed.role, 'member');
    assert.deepEqual([...removed.revoked.agents].sort(), [bySession.nodeId, byKey.nodeId].sort());
    assert.deepEqual(removed.revoked.keys, [minted.body.payload!.id]);

    // Refused at once, on every call of the protocol.
    for (const node of [{ nodeId: bySession.nodeId as string, nodeKey: bySession.apiKey as string }, byKey]) {
      const poll = await post('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 0 }, node.nodeKey);
      assert.deepEqual([poll.status, poll.body.code], [401, 'auth.unauthenticated'], `${node.nodeId} poll`);
      const beat = await post('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [] }, node.nodeKey);
      assert.equal(beat.status, 401, `${node.nodeId} heartbeat`);
    }
    // Its running job is requeued now (not after the loss window), as a deregistration.
    await waitFor(
      'the job to be requeued',
      async () => {
        const now = await v0ok('GET', `/jobs/${job.id}`, {
          token: owner.token,
          headers: { 'X-Compute-Workspace': wsId },
        });
        return now.state === 'QUEUED' && now.attempt === 2;
      },
      10_000,
    );
    assert.equal(
      (await db()('job_attempts').where({ lease_id: held.leaseId }).first('end_reason')).end_reason,
      'deregistered',
    );

    // The others still work.
    for (const node of [{ nodeId: byOwner.nodeId as string, nodeKey: byOwner.apiKey as string }, byWorkspace]) {
      assert.equal(
        (await post('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 0 }, node.nodeKey)).status,
        200,
        `${node.nodeId} stays`,
      );
    }
    const listed = (
      await v0ok('GET', '/agents', { token: owner.token, headers: { 'X-Compute-Workspace': wsId } })
    ).items.map((a: { id: string }) => a.id);
    assert.deepEqual([...listed].sort(), [byOwner.nodeId, byWorkspace.nodeId].sort());

    // The audit log says what the removal revoked, and names the removal on each agent's entry.
    const entry = await db()('audit_log')
      .where({ workspace_id: wsId, action: 'member.remove', target_id: member.user.id })
      .first();
    assert.deepEqual([...entry.details.revoked.agents].sort(), [...removed.revoked.agents].sort());
    const agentEntries = await db()('audit_log')
      .where({ workspace_id: wsId, action: 'agent.deregister' })
      .select('target_id', 'details', 'actor_id');
    assert.deepEqual(agentEntries.map((e) => e.target_id).sort(), [...removed.revoked.agents].sort());
    for (const e of agentEntries)
      assert.deepEqual(
        [e.details.reason, e.details.userId, e.actor_id],
        ['member.remove', member.user.id, owner.user.id],
      );
  });

  it('decides on the member row read under the lock: an admin never removes someone an owner just promoted', async function () {
    this.timeout(120_000);
    const { ws, owner, admin, member } = await team();
    const wsId = ws.id as string;
    const path = `/workspaces/${wsId}/members/${member.user.id}`;
    const outcomes = new Set<string>();
    for (let round = 0; round < 25; round++) {
      const [promote, remove] = await Promise.all([
        v0('PATCH', path, { token: owner.token, body: { role: 'owner' } }),
        v0('DELETE', path, { token: admin.token }),
      ]);
      const seen = `${promote.status}/${remove.status}`;
      outcomes.add(seen);
      // Promoted first: the admin may not remove an owner. Removed first: there is no one to promote.
      assert.ok(
        seen === '200/403' || seen === '404/200',
        `round ${round}: promote ${promote.status}, remove ${remove.status}`,
      );
      const row = await db()('workspace_members').where({ workspace_id: wsId, user_id: member.user.id }).first('role');
      assert.equal(row?.role, seen === '200/403' ? 'owner' : undefined);
      // Back to a plain member for the next round.
      if (row) await v0ok('PATCH', path, { token: owner.token, body: { role: 'member' } });
      else
        await v0ok('POST', `/workspaces/${wsId}/members`, {
          token: owner.token,
          body: { email: member.user.email, role: 'member' },
        });
    }
    // Every refusal is audited with the role the change needed.
    const denied = await db()('audit_log')
      .where({ workspace_id: wsId, action: 'member.remove', outcome: 'denied' })
      .select('details');
    for (const d of denied) assert.equal(d.details.requiredRole, 'owner');
    assert.ok(outcomes.size >= 1);
  });
});

describe('a user removed from their personal workspace', () => {
  it('still logs in, lists what is left, creates a workspace and acts there; the old workspace is 404', async () => {
    const creator = await login();
    const coOwner = await login();
    const personal = creator.user.workspaceId;
    await v0ok('POST', `/workspaces/${personal}/members`, {
      token: creator.token,
      body: { email: coOwner.user.email, role: 'owner' },
    });
    await v0ok('DELETE', `/workspaces/${personal}/members/${creator.user.id}`, { token: coOwner.token });

    // The session still authenticates; where it acts, the workspace it left does not exist for it.
    const listed = await v0ok('GET', '/workspaces', { token: creator.token });
    assert.deepEqual(listed.items, []);
    const jobs = await v0('GET', '/jobs', { token: creator.token });
    assert.deepEqual([jobs.status, jobs.body.code], [404, 'resource.not_found']);
    assert.equal((await v0('GET', `/workspaces/${personal}`, { token: creator.token })).status, 404);
    const onA = await postA('/compute/jobs/list', {}, { Authorization: `Bearer ${creator.token}` });
    assert.deepEqual([onA.status, onA.body.code], [404, 'resource.not_found']);

    // A new login works, and so does a fresh start.
    const again = await login(creator.user.email);
    const made = await v0ok('POST', '/workspaces', { token: again.token, body: { name: 'fresh start' } });
    assert.equal(made.role, 'owner');
    assert.deepEqual(
      (await v0ok('GET', '/workspaces', { token: again.token })).items.map((w: { id: string }) => w.id),
      [made.id],
    );
    const at = { 'X-Compute-Workspace': made.id };
    const job = await v0ok('POST', '/jobs', {
      token: again.token,
      headers: at,
      body: { type: 'COMMAND', command: 'echo hi' },
    });
    assert.equal((await v0ok('GET', `/jobs/${job.id}`, { token: again.token, headers: at })).state, 'QUEUED');
    assert.equal(
      (await postA('/compute/jobs/list', {}, { ...at, Authorization: `Bearer ${creator.token}` })).status,
      200,
      'Surface A too, with the header',
    );
  });

  it('a user who leaves their personal workspace themselves is not locked out either', async () => {
    const user = await login();
    const heir = await login();
    await v0ok('POST', `/workspaces/${user.user.workspaceId}/members`, {
      token: user.token,
      body: { email: heir.user.email, role: 'owner' },
    });
    await v0ok('DELETE', `/workspaces/${user.user.workspaceId}/members/${user.user.id}`, { token: user.token });
    assert.equal((await v0('GET', '/workspaces', { token: user.token })).status, 200);
    assert.equal((await v0('POST', '/workspaces', { token: user.token, body: { name: 'mine again' } })).status, 201);
    assert.equal((await v0('GET', '/jobs', { token: user.token })).status, 404);
  });
});
