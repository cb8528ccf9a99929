import assert from 'node:assert/strict';
import { createApiKey } from '../../src/auth/api-keys';
import { httpDuration, longPollsWaiting } from '../../src/metrics/registry';
import { waitFor } from '../support/agents';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { credentialHeaders, newWorkspace, registerNode, sleep, submit } from '../support/http';
import { v0ok } from '../support/v0';

// A poll that has to wait is answered after its middleware chain has finished (src/http/late-answer.ts):
// its answer must be the one the chain would have given, envelope, headers and metrics included.

const POLL_ROUTE = { route: '/api/compute/nodes/poll', method: 'POST' };
const waitingNow = async () => (await longPollsWaiting.get()).values[0]?.value ?? 0;

/** Poll answers observed by the duration histogram with `status`, and how many took longer than `seconds`. */
async function pollDurations(status: string, seconds: number) {
  const labelsOf = (v: { labels: object }) => v.labels as Record<string, string | number>;
  const values = (await httpDuration.get()).values.filter((v) =>
    Object.entries({ ...POLL_ROUTE, status }).every(([k, x]) => labelsOf(v)[k] === x),
  );
  const count = values.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;
  const within = values.find((v) => v.metricName?.endsWith('_bucket') && labelsOf(v).le === seconds)?.value ?? 0;
  return { count, longer: count - within };
}

function startPoll(node: { nodeId: string; nodeKey: string }, requestId: string, signal?: AbortSignal) {
  return fetch(`${testEnv().url}/api/compute/nodes/poll`, {
    method: 'POST',
    signal,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, ...credentialHeaders(node.nodeKey) },
    body: JSON.stringify({ nodeId: node.nodeId, waitSeconds: 20 }),
  });
}

describe('a waiting poll answered after its middleware chain', function () {
  this.timeout(60_000);

  it("answers the job it waited for in the envelope, with the chain's headers, counted with the time it waited", async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const before = await pollDurations('200', 2.5);
    const waitingBefore = await waitingNow();
    const answer = startPoll(node, 'late-poll-1');
    await waitFor('the poll waiting', async () => (await waitingNow()) > waitingBefore);
    await sleep(3000);
    assert.equal((await pollDurations('200', 2.5)).count, before.count, 'not counted while it waits');
    const job = await submit(key);
    const res = await answer;
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-request-id'), 'late-poll-1');
    assert.match(res.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
    assert.ok(res.headers.get('ratelimit-remaining'), 'the rate limit headers the chain set');
    const body = (await res.json()) as {
      status: string;
      payload: { jobs: Array<{ job_id: string; artifactUploadUrl: string }>; cancel: string[] };
    };
    assert.equal(body.status, 'OK');
    assert.deepEqual(
      body.payload.jobs.map((j) => j.job_id),
      [job.job_id],
    );
    assert.deepEqual(body.payload.cancel, []);
    assert.ok(
      body.payload.jobs[0].artifactUploadUrl.startsWith(`${testEnv().url}/api/`),
      'an upload URL built from the request',
    );
    const after = await pollDurations('200', 2.5);
    assert.equal(after.count - before.count, 1, 'counted once, when answered');
    assert.equal(after.longer - before.longer, 1, 'with the time it waited');
  });

  it("answers a poll whose node is removed while it waits with the envelope's error and the request ID", async () => {
    const s = await login();
    const { key } = await createApiKey(testEnv().db, { workspaceId: s.user.workspaceId, name: 'fleet', kind: 'user' });
    const node = await registerNode(key);
    const waitingBefore = await waitingNow();
    const answer = startPoll(node, 'late-poll-2');
    await waitFor('the poll waiting', async () => (await waitingNow()) > waitingBefore);
    await v0ok('DELETE', `/agents/${node.nodeId}`, { token: s.token, status: 204 });
    const res = await answer;
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('x-request-id'), 'late-poll-2');
    assert.deepEqual(await res.json(), {
      status: 'ERROR',
      code: 'auth.unauthenticated',
      message: 'This node was removed; its key no longer works',
      requestId: 'late-poll-2',
    });
  });

  it('stops waiting as soon as its client goes away', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const waitingBefore = await waitingNow();
    const client = new AbortController();
    const answer = startPoll(node, 'late-poll-3', client.signal).catch(() => 'gone');
    await waitFor('the poll waiting', async () => (await waitingNow()) > waitingBefore);
    client.abort();
    assert.equal(await answer, 'gone');
    // Its wait is 20 s: only the client's leaving ends it this soon.
    await waitFor('the poll no longer waiting', async () => (await waitingNow()) === waitingBefore, 5000);
  });
});
