// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { createTokenIssuer } from '../../src/auth/jwt';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { sseFrames } from '../../src/shared/sse-frames';
import { login } from '../support/auth';
import { waitFor } from '../support/agents';
import { quietLog, testEnv } from '../support/env';
import { credentialHeaders, heldJob, newWorkspace, ok, post, registerNode, submit } from '../support/http';

const STREAMS = 2;
const POLLS = 1;

/** Opens a following log stream; `closed` resolves with the comments seen when the server ends it. */
async function follow(baseUrl: string, credential: string, jobId: string) {
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}/api/compute/jobs/${jobId}/logs`, {
    headers: credentialHeaders(credential),
    signal: abort.signal,
  });
  const closed =
    res.status !== 200
      ? Promise.resolve([] as string[])
      : (async () => {
          const comments: string[] = [];
          try {
            for await (const frame of sseFrames(res.body)) comments.push(...frame.comments);
          } catch (err) {
            if (!abort.signal.aborted) throw err;
          }
          return comments;
        })();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const body: any = res.status === 200 ? undefined : await res.json();
  return { status: res.status, body, closed, stop: () => abort.abort() };
}

describe('streams and waiters are bounded', () => {
  let api: ServiceProcess;
  before(async () => {
    const config = testEnv().configWith({
      SSE_STREAMS_PER_CREDENTIAL: String(STREAMS),
      POLLS_PER_CREDENTIAL: String(POLLS),
    });
    api = await startServiceProcess({ config, log: quietLog, api: true, worker: false });
  });
  after(() => api?.stop());

  it('caps log streams per credential (429 past it) and frees a slot when a stream closes', async () => {
    const { key, job } = await heldJob();
    const open = [await follow(api.url!, key, job.job_id), await follow(api.url!, key, job.job_id)];
    assert.deepEqual(
      open.map((s) => s.status),
      [200, 200],
    );
    const third = await follow(api.url!, key, job.job_id);
    assert.equal(third.status, 429);
    assert.equal(third.body.code, 'rate_limit.exceeded');
    const other = await follow(api.url!, (await login()).token, job.job_id);
    assert.equal(
      other.status,
      404,
      "another credential is not capped by this one's streams (and sees its own workspace only)",
    );
    open[0].stop();
    await open[0].closed;
    let again = await follow(api.url!, key, job.job_id);
    for (let i = 0; again.status === 429 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await follow(api.url!, key, job.job_id);
    }
    assert.equal(again.status, 200, 'the closed stream gave its slot back');
    again.stop();
    open[1].stop();
  });

  it('caps long polls per credential', async () => {
    // No job to hand out: every long poll waits its whole time.
    const { key } = await newWorkspace();
    const node = await registerNode(key, { pool: 'capped' });
    const longPoll = () => {
      const poll = {
        done: false,
        turnedAway: false,
        reply: post('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 6 }, node.nodeKey, api.url!),
      };
      void poll.reply.then((r) => Object.assign(poll, { done: true, turnedAway: r.status === 429 }));
      return poll;
    };
    let first = longPoll();
    // Until the long poll waits, a quick one may pass, and may even hold the one slot as the long
    // poll arrives (which then is turned away and sent again); once it waits, the next is refused.
    const second = await waitFor(
      'a second poll to be refused',
      async () => {
        if (first.turnedAway) first = longPoll();
        const reply = await post(
          '/compute/nodes/poll',
          { nodeId: node.nodeId, waitSeconds: 0 },
          node.nodeKey,
          api.url!,
        );
        return reply.status === 429 && reply;
      },
      10_000,
    );
    assert.equal(first.done, false, 'refused while the long poll was still waiting');
    assert.equal(second.body.code, 'rate_limit.exceeded');
    const another = await registerNode(key, { pool: 'capped' }, 'another');
    assert.equal(
      (await post('/compute/nodes/poll', { nodeId: another.nodeId, waitSeconds: 0 }, another.nodeKey, api.url!)).status,
      200,
    );
    assert.equal((await first.reply).status, 200);
    assert.equal(
      (await post('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 0 }, node.nodeKey, api.url!)).status,
      200,
      'the slot is free again',
    );
  });

  it('ends a stream when its API key is revoked', async () => {
    const { key, job } = await heldJob();
    const stream = await follow(testEnv().url, key, job.job_id);
    assert.equal(stream.status, 200);
    const row = await testEnv()
      .db('api_keys')
      .where({ prefix: key.split('_')[0] })
      .first('id');
    await ok('/compute/api-keys/revoke', { id: row.id }, key);
    const comments = await stream.closed;
    assert.ok(
      comments.some((c) => /credential revoked or expired/.test(c)),
      comments.join('|'),
    );
    assert.equal((await follow(testEnv().url, key, job.job_id)).status, 401);
  });

  it('ends a stream when its session token expires', async () => {
    const session = await login();
    const { auth } = testEnv().config;
    const shortLived = createTokenIssuer({
      secret: auth.jwtSecret!,
      issuer: auth.jwtIssuer,
      audience: auth.jwtAudience,
      ttlSeconds: 2,
    });
    const { token, expiresAt } = await shortLived.issue({
      userId: session.user.id,
      workspaceId: session.user.workspaceId,
      email: session.user.email,
    });
    const job = await submit(session.token, { command: 'sleep 60' });
    const stream = await follow(testEnv().url, token, job.job_id);
    assert.equal(stream.status, 200);
    const comments = await stream.closed;
    assert.ok(Date.now() >= Date.parse(expiresAt) - 50, 'not before the expiry');
    assert.ok(
      comments.some((c) => /credential revoked or expired/.test(c)),
      comments.join('|'),
    );
  });
});
