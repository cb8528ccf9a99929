import assert from 'node:assert/strict';
import { startServiceProcess } from '../../src/runtime/service-process';
import { waitFor } from '../support/agents';
import { testEnv } from '../support/env';
import { credentialHeaders, newWorkspace, registerNode } from '../support/http';
import { captureLog } from '../support/log-capture';

// An API instance that stops (a deploy, a scale-down) while agents' polls wait on it: each poll is
// answered, empty, so its agent polls again at once on another instance, rather than meeting a
// reset connection; and nothing the answers need is torn down under them.

describe('an API instance that stops', function () {
  this.timeout(60_000);

  it('answers its waiting polls empty before it closes, and logs no error', async () => {
    const capture = captureLog();
    const api = await startServiceProcess({
      config: testEnv().configWith({}),
      log: capture.log,
      api: true,
      worker: false,
    });
    const { key } = await newWorkspace();
    const nodes = [await registerNode(key, {}, 'a'), await registerNode(key, {}, 'b')];
    const polls = nodes.map(async (node) => {
      const res = await fetch(`${api.url}/api/compute/nodes/poll`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...credentialHeaders(node.nodeKey) },
        body: JSON.stringify({ nodeId: node.nodeId, waitSeconds: 30 }),
      });
      return { status: res.status, body: (await res.json()) as { status: string; payload: { jobs: unknown[] } } };
    });
    await waitFor('both polls held', async () => api.services!.agents.pollsHere() === 2);
    const stopping = Date.now();
    await api.stop();
    const answers = await Promise.all(polls);
    const tookMs = Date.now() - stopping;
    for (const a of answers) {
      assert.equal(a.status, 200);
      assert.deepEqual([a.body.status, a.body.payload.jobs], ['OK', []]);
    }
    assert.ok(tookMs < 5000, `answered as it stopped, not at the end of the wait (${tookMs} ms)`);
    const errors = capture.lines().filter((l) => l.level >= 50);
    assert.deepEqual(errors, [], 'nothing failed under the stop');
  });
});
