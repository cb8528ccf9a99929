// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { agentPool } from '../support/agents';
import { testEnv } from '../support/env';
import {
  credentialHeaders,
  inState,
  newWorkspace,
  ok,
  pollOne,
  post,
  registerNode,
  resultOf,
  retrieve,
  submit,
  waitForJob,
  storedLines,
} from '../support/http';

describe('a node key acts for its node only', () => {
  const start = agentPool();

  it('is 403 auth.forbidden on every route but its own node operations, and changes nothing', async () => {
    const { key, workspaceId } = await newWorkspace();
    const node = await registerNode(key);
    const queued = await submit(key);
    const keyRow = await testEnv()
      .db('api_keys')
      .where({ prefix: key.split('_')[0] })
      .first('id');
    const refused: Array<[string, Record<string, unknown>]> = [
      ['/compute/jobs/submit', { type: 'COMMAND', command: 'echo from a node' }],
      ['/compute/jobs/retrieve', { job_id: queued.job_id }],
      ['/compute/jobs/list', {}],
      ['/compute/jobs/cancel', { job_id: queued.job_id }],
      ['/compute/jobs/retry', { job_id: queued.job_id }],
      ['/compute/api-keys/list', {}],
      ['/compute/api-keys/revoke', { id: keyRow.id }],
      ['/compute/api-keys/create', { name: 'escalated' }],
      ['/compute/nodes/list', {}],
      ['/compute/nodes/register', { name: 'another' }],
      ['/compute/jobs/artifacts/presign-upload', { job_id: queued.job_id }],
    ];
    for (const [route, body] of refused) {
      const reply = await post(route, body, node.nodeKey);
      assert.equal(reply.status, 403, `${route}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.body.code, 'auth.forbidden', route);
    }
    const sse = await fetch(`${testEnv().url}/api/compute/jobs/${queued.job_id}/logs`, {
      headers: credentialHeaders(node.nodeKey),
    });
    assert.equal(sse.status, 403);

    // Nothing the node asked for happened.
    assert.equal((await retrieve(key, queued.job_id)).state, 'queued');
    assert.equal((await testEnv().db('api_keys').where({ id: keyRow.id }).first()).revoked_at, null);
    assert.equal(
      Number((await testEnv().db('jobs').where({ workspace_id: workspaceId }).count<{ n: string }[]>('* as n'))[0].n),
      1,
    );

    // Its own protocol still works, end to end.
    await ok('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [] }, node.nodeKey);
    const held = (await pollOne(node, 2))!;
    assert.equal(held.job_id, queued.job_id);
    await ok(
      '/compute/nodes/logs',
      {
        nodeId: node.nodeId,
        job_id: held.job_id,
        leaseId: held.leaseId,
        lines: [{ seq: 1, stream: 'stdout', line: 'hi' }],
      },
      node.nodeKey,
    );
    await ok('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey);
    await ok('/compute/nodes/drain', { nodeId: node.nodeId, enable: true }, node.nodeKey);
    const rotated = await ok('/compute/nodes/rotate-key', { nodeId: node.nodeId }, node.nodeKey);
    assert.equal(
      (await post('/compute/jobs/list', {}, rotated.apiKey)).status,
      403,
      'a rotated node key is still only a node key',
    );
  });

  it("starts jobs with an allow-listed environment, never the agent's, and keeps the identity file private", async () => {
    const { key } = await newWorkspace();
    const secret = `s3cret-${Date.now()}`;
    const agent = await start({ key, env: { COMPUTE_AGENT_KEY: key, AGENT_ONLY_SECRET: secret, LANG: 'C.UTF-8' } });
    const job = await submit(key, { command: 'env', env: { MINE: 'yes' } });
    await waitForJob(key, job.job_id, inState('succeeded'));
    const lines = await storedLines(job.job_id);
    const names = new Set(lines.map((l) => l.split('=')[0]));
    assert.ok(names.has('PATH') && names.has('HOME') && names.has('LANG'), [...names].join(' '));
    assert.ok(lines.includes('MINE=yes'));
    assert.ok(lines.includes(`COMPUTE_JOB_ID=${job.job_id}`));
    assert.ok(lines.includes('COMPUTE_ATTEMPT=1'));
    // The agent ran with the suite's whole environment: database, storage and signing secrets.
    for (const name of [...Object.keys(testEnv().vars), 'COMPUTE_AGENT_KEY', 'AGENT_ONLY_SECRET']) {
      if (['PATH', 'HOME', 'LANG', 'TERM', 'TMPDIR'].includes(name)) continue;
      assert.ok(!names.has(name), `${name} reached the job`);
    }
    const everything = lines.join('\n');
    assert.ok(!everything.includes(secret));
    assert.ok(!everything.includes(key.split('_')[1]), "the agent's key reached the job");
    const nodeKey = JSON.parse(fs.readFileSync(path.join(agent.dir, 'node.json'), 'utf8')).nodeKey as string;
    assert.ok(!everything.includes(nodeKey.split('_')[1]), 'the node key reached the job');

    assert.equal(fs.statSync(path.join(agent.dir, 'node.json')).mode & 0o777, 0o600);
    assert.equal(fs.statSync(agent.dir).mode & 0o777, 0o700);
  });
});
