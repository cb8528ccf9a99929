// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { testEnv } from '../support/env';
import { login } from '../support/auth';
import { v0 } from '../support/v0';
import { credentialHeaders, newWorkspace, ok, pollOne, post, registerNode, submit } from '../support/http';

const countJobs = async (workspaceId: string) =>
  Number(
    (await testEnv().db('jobs').where({ workspace_id: workspaceId }).count<{ count: string }[]>('* as count'))[0].count,
  );

function assertError(reply: { status: number; body: Record<string, unknown> }, status: number, code: string) {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  assert.equal(reply.body.status, 'ERROR');
  assert.equal(reply.body.code, code);
  assert.equal(typeof reply.body.message, 'string');
  assert.equal('payload' in reply.body, false);
  assert.doesNotMatch(JSON.stringify(reply.body), /at .*\.(ts|js):\d+/, 'no stack trace');
}

describe('bad input is refused with the right code and changes nothing', () => {
  it('malformed JSON, wrong types, unknown fields, out-of-range values, unsupported type', async () => {
    const { key, workspaceId } = await newWorkspace();
    assertError(await post('/compute/jobs/submit', '{"type": "COMMAND", ', key), 400, 'request.invalid');
    assertError(await post('/compute/jobs/submit', { type: 'COMMAND', command: 42 }, key), 400, 'request.invalid');
    const unknown = await post('/compute/jobs/submit', { type: 'COMMAND', command: 'x', colour: 'red' }, key);
    assertError(unknown, 400, 'request.invalid');
    assert.deepEqual(unknown.body.details.fields, [{ path: 'colour', message: 'unknown field' }]);
    assertError(
      await post('/compute/jobs/submit', { type: 'COMMAND', command: 'x', timeoutSeconds: 0 }, key),
      400,
      'request.invalid',
    );
    assertError(
      await post('/compute/jobs/submit', { type: 'COMMAND', command: 'x', timeoutSeconds: 86_401 }, key),
      400,
      'request.invalid',
    );
    assertError(await post('/compute/jobs/submit', { type: 'COMMAND', command: '' }, key), 400, 'request.invalid');
    assertError(
      await post('/compute/jobs/submit', { type: 'COMMAND', command: 'x', labels: { 'Bad Key': 'v' } }, key),
      400,
      'request.invalid',
    );
    assertError(
      await post('/compute/jobs/submit', { type: 'COMMAND', command: 'x', priority: 9 }, key),
      400,
      'request.invalid',
    );
    assertError(
      await post('/compute/jobs/submit', { type: 'COMMAND', command: 'x'.repeat(64 * 1024 + 1) }, key),
      400,
      'request.invalid',
    );
    assertError(
      await post('/compute/jobs/submit', { type: 'GPU_MAGIC', command: 'x' }, key),
      400,
      'job.unsupported_type',
    );
    assertError(await post('/compute/jobs/submit', [1, 2], key), 400, 'request.invalid');
    assertError(await post('/compute/jobs/list', { limit: 201 }, key), 400, 'request.invalid');
    assertError(await post('/compute/jobs/list', { cursor: 'not-a-cursor' }, key), 400, 'request.invalid');
    assert.equal(await countJobs(workspaceId), 0);
  });

  it('values PostgreSQL cannot store, foreign cursors and out-of-range numbers are 400 naming the field, never 500', async () => {
    const { key, workspaceId } = await newWorkspace();
    const fieldOf = (reply: { body: { details?: { fields?: Array<{ path: string }> } } }) =>
      reply.body.details?.fields?.map((f) => f.path);
    const nul = [
      { type: 'COMMAND', command: 'echo a\u0000b' },
      { type: 'COMMAND', command: 'x', labels: { team: 'o\u0000ps' } },
      { type: 'COMMAND', command: 'x', env: { TOKEN: '\u0000' } },
      { type: 'COMMAND', command: 'x', selector: { gpu: 'a\u0000' } },
      { type: 'COMMAND', command: 'x', artifacts: { paths: ['out/\u0000'] } },
    ];
    const expected = ['command', 'labels.team', 'env.TOKEN', 'selector.gpu', 'artifacts.paths.0'];
    for (const [i, manifest] of nul.entries()) {
      const reply = await post('/compute/jobs/submit', manifest, key);
      assertError(reply, 400, 'request.invalid');
      assert.deepEqual(fieldOf(reply), [expected[i]]);
    }
    assertError(await post('/compute/nodes/register', '{"name": "n\\u0000"}', key), 400, 'request.invalid');
    assertError(
      await post('/compute/nodes/register', '{"name": "n", "capabilities": {"k\\u0000": 1}}', key),
      400,
      'request.invalid',
    );
    assertError(await post('/compute/api-keys/list', { cursor: 'AA' }, key), 400, 'request.invalid');
    for (const route of ['/compute/nodes/list', '/compute/jobs/list']) {
      for (const cursor of ['AA', 'AAAA', Buffer.from('job_\u0000').toString('base64url')]) {
        const reply = await post(route, { cursor }, key);
        assertError(reply, 400, 'request.invalid');
      }
    }
    const node = await registerNode(key);
    await submit(key);
    const held = (await pollOne(node))!;
    const push = (seq: number) =>
      post(
        '/compute/nodes/logs',
        {
          nodeId: node.nodeId,
          job_id: held.job_id,
          leaseId: held.leaseId,
          lines: [{ seq, stream: 'stdout', line: 'x' }],
        },
        node.nodeKey,
      );
    assertError(await push(2 ** 31), 400, 'request.invalid');
    assert.equal((await push(2 ** 31 - 1)).status, 200);
    assertError(
      await post(
        '/compute/nodes/result',
        { nodeId: node.nodeId, job_id: held.job_id, leaseId: held.leaseId, exitCode: 0, runtimeMs: 2 ** 60 },
        node.nodeKey,
      ),
      400,
      'request.invalid',
    );
    assert.equal(await countJobs(workspaceId), 1, 'only the valid submit made a job');
  });

  it('a region for a job of the workspace’s own agents (pool self) is refused with 400 naming it', async () => {
    const { key, workspaceId } = await newWorkspace();
    const reply = await post('/compute/jobs/submit', { type: 'COMMAND', command: 'x', region: 'eu-west-1' }, key);
    assertError(reply, 400, 'request.invalid');
    assert.deepEqual(
      reply.body.details.fields.map((f: { path: string }) => f.path),
      ['region'],
    );
    assert.equal(await countJobs(workspaceId), 0);
  });

  it('bodies over 1 MiB are 413 request.too_large', async () => {
    const { key, workspaceId } = await newWorkspace();
    const reply = await post(
      '/compute/jobs/submit',
      { type: 'COMMAND', command: 'x', env: { BIG: 'y'.repeat(1024 * 1024) } },
      key,
    );
    assertError(reply, 413, 'request.too_large');
    assert.equal(await countJobs(workspaceId), 0);
    // Surface B answers it as a problem, and its document says so (schemathesis found it missing).
    const s = await login();
    const b = await v0('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'x', env: { BIG: 'y'.repeat(1024 * 1024) } },
    });
    assert.deepEqual([b.status, b.body.code], [413, 'request.too_large']);
    assert.equal(b.headers.get('content-type'), 'application/problem+json');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const doc = (await (await fetch(`${testEnv().url}/v0/openapi.json`)).json()) as any;
    assert.ok(doc.paths['/v0/jobs'].post.responses['413'], 'POST /v0/jobs documents 413');
  });

  it('missing, malformed and unknown credentials are 401 auth.unauthenticated', async () => {
    assertError(await post('/compute/jobs/list', {}), 401, 'auth.unauthenticated');
    assertError(await post('/compute/jobs/list', {}, 'nonsense'), 401, 'auth.unauthenticated');
    assertError(
      await post('/compute/jobs/list', {}, 'ckuxxxxxxxxxx_yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'),
      401,
      'auth.unauthenticated',
    );
    const { key } = await newWorkspace();
    const tampered = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    assertError(await post('/compute/jobs/list', {}, tampered), 401, 'auth.unauthenticated');
  });

  const isolation = (caller: string, workspaceB: () => Promise<{ key: string }>) =>
    it(`unknown IDs and another workspace's IDs are 404 resource.not_found on every route that takes one (${caller})`, async () => {
      const a = await newWorkspace();
      const b = await workspaceB();
      const nodeA = await registerNode(a.key);
      const jobA = await submit(a.key);
      const held = (await pollOne(nodeA))!;
      for (const jobId of ['job_00000000000000000000000000', jobA.job_id]) {
        for (const op of ['retrieve', 'cancel', 'retry'])
          assertError(await post(`/compute/jobs/${op}`, { job_id: jobId }, b.key), 404, 'resource.not_found');
        const sse = await fetch(`${testEnv().url}/api/compute/jobs/${jobId}/logs`, {
          headers: credentialHeaders(b.key),
        });
        assert.equal(sse.status, 404);
        assert.equal(((await sse.json()) as { code: string }).code, 'resource.not_found');
      }
      const nodeB = await registerNode(b.key);
      assertError(
        await post(
          '/compute/nodes/result',
          { nodeId: nodeB.nodeId, job_id: jobA.job_id, leaseId: held.leaseId, exitCode: 0, runtimeMs: 1 },
          nodeB.nodeKey,
        ),
        404,
        'resource.not_found',
      );
      assertError(
        await post(
          '/compute/nodes/logs',
          { nodeId: nodeB.nodeId, job_id: jobA.job_id, leaseId: held.leaseId, lines: [] },
          nodeB.nodeKey,
        ),
        404,
        'resource.not_found',
      );
      for (const op of ['heartbeat', 'poll', 'drain', 'rotate-key']) {
        assertError(await post(`/compute/nodes/${op}`, { nodeId: nodeA.nodeId }, b.key), 404, 'resource.not_found');
      }
      assertError(
        await post('/compute/nodes/heartbeat', { nodeId: nodeA.nodeId }, nodeB.nodeKey),
        404,
        'resource.not_found',
      );
      const keyA = await testEnv()
        .db('api_keys')
        .where({ prefix: a.key.split('_')[0] })
        .first('id');
      assertError(await post('/compute/api-keys/revoke', { id: keyA.id }, b.key), 404, 'resource.not_found');
      const still = await ok('/compute/jobs/retrieve', { job_id: jobA.job_id }, a.key);
      assert.equal(still.state, 'running', 'nothing of A changed');
      assert.equal((await post('/compute/jobs/list', {}, a.key)).status, 200, "A's key still works");
    });
  isolation('API key', () => newWorkspace());
  isolation('session JWT', async () => ({ key: (await login()).token }));

  it('a node key acts only for its own node; rotation retires the old key at once', async () => {
    const { key } = await newWorkspace();
    const one = await registerNode(key, {}, 'one');
    const two = await registerNode(key, {}, 'two');
    assertError(await post('/compute/nodes/heartbeat', { nodeId: two.nodeId }, one.nodeKey), 403, 'auth.forbidden');
    assertError(await post('/compute/nodes/register', { name: 'x' }, one.nodeKey), 403, 'auth.forbidden');
    const rotated = await ok('/compute/nodes/rotate-key', { nodeId: one.nodeId }, one.nodeKey);
    assertError(
      await post('/compute/nodes/heartbeat', { nodeId: one.nodeId }, one.nodeKey),
      401,
      'auth.unauthenticated',
    );
    await ok('/compute/nodes/heartbeat', { nodeId: one.nodeId }, rotated.apiKey);
  });

  it('unknown routes are 404 in the envelope; the OpenAPI document lists the operations', async () => {
    const { key } = await newWorkspace();
    assertError(await post('/compute/nope', {}, key), 404, 'resource.not_found');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const doc = (await (await fetch(`${testEnv().url}/api/openapi.json`)).json()) as any;
    assert.equal(doc.openapi, '3.1.0');
    for (const path of ['submit', 'retrieve', 'list', 'cancel', 'retry'])
      assert.ok(doc.paths[`/api/compute/jobs/${path}`], path);
    for (const path of ['register', 'heartbeat', 'poll', 'logs', 'result', 'drain', 'list', 'rotate-key'])
      assert.ok(doc.paths[`/api/compute/nodes/${path}`], path);
    assert.ok(doc.paths['/api/compute/jobs/{jobId}/logs']);
    for (const path of ['presign-upload', 'presign-download'])
      assert.deepEqual(doc.paths[`/api/compute/jobs/artifacts/${path}`].post.security, [{ Bearer: [] }], path);
    assert.ok(doc.paths['/api/compute/artifacts/upload/{jobId}/{id}'].put.responses['413']);
    assert.ok(doc.paths['/api/compute/artifacts/download/{jobId}/{id}'].get.responses['206']);
    assert.ok(doc.components.schemas.JobManifest.properties.command);
  });
});
