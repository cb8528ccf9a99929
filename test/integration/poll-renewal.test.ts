import assert from 'node:assert/strict';
import { apisPerTest } from '../support/api-process';
import { testEnv } from '../support/env';
import { newWorkspace, ok, registerNode, retrieve, sleep, submit } from '../support/http';
import { waitFor } from '../support/agents';

// An idle fleet's renewed polls skip their claim while nothing was queued for them (see
// src/agents/empty-claims.ts), and lose no job by it: a job queued since is taken by the next
// poll, a crashed claim's job is taken once the reconciler frees and notifies it, and a job freed
// without a notification is taken once the skip's share of the bound has passed.
describe('renewed polls of an idle node', () => {
  const apiWith = apisPerTest();

  const skipped = async (url: string) => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const m = /^compute_claims_total\{after="start",outcome="skipped"\} (\d+)$/m.exec(text);
    return m ? Number(m[1]) : 0;
  };

  /** A node of a workspace of its own, polling (without waiting) an API instance of its own. */
  const idleNode = async (skipMaxSeconds: string) => {
    const api = await apiWith({ POLL_CLAIM_SKIP_MAX_SECONDS: skipMaxSeconds });
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const poll = async () =>
      (await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 0 }, node.nodeKey, api.url)).jobs;
    return { api, key, node, poll };
  };

  /**
   * A job of the node's workspace reserved by a claim that crashed, its reservation running out in
   * a second with nothing notified; the node's first poll finds it reserved and claims nothing.
   * `polled`: when that poll, whose empty claim starts the skip, was sent.
   */
  const crashedClaim = async (key: string, poll: () => Promise<unknown[]>) => {
    const job = await submit(key);
    const db = testEnv().db;
    await waitFor(
      'the job to be claimable',
      async () => (await db('jobs').where({ id: job.job_id }).first()).workflow_started,
      10_000,
    );
    await db('jobs')
      .where({ id: job.job_id })
      .update({ claimed_by: 'node_crashed', claimed_until: db.raw("now() + interval '1 second'") });
    const polled = Date.now();
    assert.deepEqual(await poll(), [], 'reserved by the crashed claim');
    return { jobId: job.job_id as string, polled };
  };

  it('skip their claim with nothing queued, and take a job queued since at once', async () => {
    const { api, key, poll } = await idleNode('60');
    assert.deepEqual(await poll(), []);
    const before = await skipped(api.url!);
    assert.deepEqual(await poll(), []);
    assert.deepEqual(await poll(), []);
    assert.equal((await skipped(api.url!)) - before, 2, 'both renewals skipped their claim');
    // Submitted through another instance: every instance hears the queue's notification.
    const job = await submit(key);
    await waitFor(
      'the job to be taken by a renewed poll',
      async () => (await poll())[0]?.job_id === job.job_id,
      10_000,
    );
  });

  it('of a node drained while idle take nothing, though they read no row while idle', async () => {
    const { api, key, node, poll } = await idleNode('60');
    assert.deepEqual(await poll(), []);
    const before = await skipped(api.url!);
    assert.deepEqual(await poll(), []);
    assert.equal((await skipped(api.url!)) - before, 1);
    // Drained through another instance: the drain names the node to every instance.
    await ok('/compute/nodes/drain', { nodeId: node.nodeId, enable: true }, node.nodeKey);
    const job = await submit(key);
    for (let i = 0; i < 5; i++) assert.deepEqual(await poll(), [], 'a drained node takes no job');
    assert.equal((await retrieve(key, job.job_id)).state, 'queued');
  });

  it('take a job freed without a notification once the bound has passed', async () => {
    const { api, key, poll } = await idleNode('3');
    // The row is free again once the crashed claim's reservation ends, with nothing notified.
    const { jobId, polled } = await crashedClaim(key, poll);
    await sleep(1500);
    const before = await skipped(api.url!);
    assert.deepEqual(await poll(), [], 'free again, but nothing said so: the renewal skips its claim');
    assert.equal((await skipped(api.url!)) - before, 1);
    await waitFor('the job to be taken once the bound passed', async () => (await poll())[0]?.job_id === jobId, 10_000);
    // Each empty claim skips for three quarters to all of the bound (spread so a fleet does not claim together).
    assert.ok(Date.now() - polled >= 2250, 'not before three quarters of the bound');
  });

  it("take a crashed claim's job once the reconciler frees its reservation, long before the bound", async () => {
    const { api, key, poll } = await idleNode('600');
    const db = testEnv().db;
    const { jobId } = await crashedClaim(key, poll);
    const before = await skipped(api.url!);
    assert.deepEqual(await poll(), [], 'the renewal skips its claim');
    assert.equal((await skipped(api.url!)) - before, 1);
    // The reservation ran out a while ago (past the reconciler's 5 s margin), with nothing notified.
    await db('jobs')
      .where({ id: jobId })
      .update({ claimed_until: db.raw("now() - interval '10 seconds'") });
    // Any instance's reconciler frees the reservation and notifies the job's queue.
    await testEnv().service.services!.transitions.releaseExpiredReservations();
    assert.deepEqual(await db('jobs').where({ id: jobId }).first('claimed_by', 'claimed_until'), {
      claimed_by: null,
      claimed_until: null,
    });
    await waitFor('the job to be taken by the next renewal', async () => (await poll())[0]?.job_id === jobId, 5_000);
  });
});
