// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import path from 'node:path';
import { createApiKey } from '../../src/auth/api-keys';
import { agentPool, waitFor } from '../support/agents';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { team } from '../support/team';
import { v0, v0ok } from '../support/v0';

describe('GET /v0/jobs/{id}/attempts', () => {
  const agents = agentPool();

  it("lists a job's attempts oldest first, with what each agent reported and never a lease; 404 as the job read is", async function () {
    this.timeout(120_000);
    const { ws, member } = await team();
    const as = { token: member.token, headers: { 'X-Compute-Workspace': ws.id } };
    const { key } = await createApiKey(testEnv().db, { workspaceId: ws.id, name: 'attempts', kind: 'user' });
    const agent = await agents({ key });

    // Fails the first time (exit 3), succeeds on its retry.
    const marker = path.join(testEnv().dataDir, `attempts-${Date.now()}.marker`);
    const command = `if [ -e ${marker} ]; then echo again; else touch ${marker}; exit 3; fi`;
    const job = await v0ok('POST', '/jobs', {
      ...as,
      body: { type: 'COMMAND', command, retry: { maxAttempts: 2, backoffSeconds: 0 } },
    });
    const done = await waitFor(
      'the job to succeed on its second attempt',
      async () => {
        const read = await v0ok('GET', `/jobs/${job.id}`, as);
        return read.state === 'SUCCEEDED' && read;
      },
      60_000,
    );
    assert.equal(done.attempt, 2);

    const reply = await v0('GET', `/jobs/${job.id}/attempts`, as);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const { items } = reply.body;
    assert.deepEqual(Object.keys(reply.body), ['items']);
    assert.deepEqual(
      items.map((a: { attempt: number }) => a.attempt),
      [1, 2],
      'oldest first',
    );
    assert.deepEqual(
      items.map((a: { exitCode: number }) => a.exitCode),
      [3, 0],
    );
    for (const a of items) {
      assert.deepEqual(Object.keys(a).sort(), [
        'agentId',
        'assignedAt',
        'attempt',
        'endReason',
        'endedAt',
        'exitCode',
        'lastHeartbeatAt',
        'runtimeMs',
      ]);
      assert.equal(a.agentId, agent.nodeId());
      assert.equal(a.endReason, 'result');
      for (const at of [a.assignedAt, a.lastHeartbeatAt, a.endedAt]) assert.equal(new Date(at).toISOString(), at);
      assert.ok(Date.parse(a.endedAt) >= Date.parse(a.assignedAt));
      assert.ok(Number.isInteger(a.runtimeMs) && a.runtimeMs >= 0, `runtimeMs ${a.runtimeMs}`);
    }
    assert.ok(
      Date.parse(items[1].assignedAt) >= Date.parse(items[0].endedAt),
      'the retry came after the first attempt ended',
    );
    // A lease is the agent's capability to write: not named, and not its value either.
    const text = JSON.stringify(reply.body);
    assert.doesNotMatch(text, /lease/i);
    const leases: string[] = await testEnv().db('job_attempts').where({ job_id: job.id }).pluck('lease_id');
    assert.equal(leases.length, 2);
    for (const lease of leases) assert.ok(!text.includes(lease), 'no lease ID in the answer');

    // Another workspace's user, and a job that does not exist: 404, as GET /v0/jobs/{id} answers.
    const stranger = await login();
    for (const [who, id, token] of [
      ['another workspace', job.id, stranger.token],
      ['an unknown job', 'job_00000000000000000000000000', member.token],
    ] as const) {
      const opts = { token, headers: token === member.token ? as.headers : {} };
      const read = await v0('GET', `/jobs/${id}`, opts);
      const attempts = await v0('GET', `/jobs/${id}/attempts`, opts);
      assert.deepEqual([attempts.status, attempts.body.code], [404, 'resource.not_found'], who);
      assert.deepEqual(
        [attempts.status, attempts.body.code, attempts.body.detail],
        [read.status, read.body.code, read.body.detail],
        `${who}: as the job read`,
      );
    }
  });

  it('is in the OpenAPI document with its Attempt schema', async () => {
    const doc = (await (await fetch(`${testEnv().url}/v0/openapi.json`)).json()) as {
      paths: Record<string, { get?: { summary: string } }>;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    assert.match(doc.paths['/v0/jobs/{id}/attempts']?.get?.summary ?? '', /attempts, oldest first/);
    assert.deepEqual(Object.keys(doc.components.schemas.Attempt.properties).sort(), [
      'agentId',
      'assignedAt',
      'attempt',
      'endReason',
      'endedAt',
      'exitCode',
      'lastHeartbeatAt',
      'runtimeMs',
    ]);
  });
});
