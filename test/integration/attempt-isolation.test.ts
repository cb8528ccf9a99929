// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { createObjectStore } from '../../src/artifacts/object-store';
import { waitFor } from '../support/agents';
import { presignDownload, send } from '../support/artifacts';
import { login } from '../support/auth';
import { testEnv, OUR_SESSIONS } from '../support/env';
import { heldJob, newWorkspace, ok, pollOne, post, registerNode, resultOf, retrieve, submit } from '../support/http';

describe('attempts and workspaces never reach into each other', () => {
  it("a stale attempt's refused upload leaves the newer attempt's artifact of the same name intact", async () => {
    const session = await login();
    const node = await registerNode(session.token);
    const job = await submit(session.token, { retry: { maxAttempts: 2, backoffSeconds: 0 } });
    const first = (await pollOne(node))!;
    const uploadUrl = (lease: string) =>
      testEnv()
        .service.services!.artifacts.uploadTemplate(testEnv().url, { id: job.job_id, timeoutSeconds: 3600 }, lease)
        .replace('{id}', 'report');

    // Attempt 1's upload of `report` is past its lease check and still sending when its attempt ends.
    let pulling: () => void = () => undefined;
    const underWay = new Promise<void>((r) => (pulling = r));
    let finish: () => void = () => undefined;
    const lastBytes = new Promise<void>((r) => (finish = r));
    async function* staleBody() {
      pulling();
      yield Buffer.alloc(1024, 'a');
      await lastBytes;
      yield Buffer.alloc(1024, 'a');
    }
    const stale = testEnv().service.services!.artifacts.receive(
      { jobId: job.job_id, id: 'report', lease: first.leaseId },
      staleBody(),
    );
    await underWay;
    const workspaceId = session.user.workspaceId;
    await ok('/compute/nodes/result', resultOf(node, first, 1), node.nodeKey);
    const second = (await pollOne(node, 5))!;
    assert.equal(second.attempt, 2);
    const fresh = await send('PUT', uploadUrl(second.leaseId), { body: Buffer.from('attempt two') });
    assert.equal(fresh.status, 200, fresh.body.toString());

    finish();
    await assert.rejects(stale, (e: { code?: string }) => e.code === 'job.not_assigned');

    const { url } = await presignDownload(session.token, job.job_id, 'report');
    const got = await send('GET', url);
    assert.equal(got.status, 200);
    assert.equal(got.body.toString(), 'attempt two', "the refused upload did not remove attempt two's bytes");
    const { objects } = await createObjectStore(testEnv().config)!.keys(`${workspaceId}/${job.job_id}/`);
    assert.equal(objects.length, 1, `one object for the one artifact: ${objects}`);
  });

  it('replacing an artifact removes the object it replaced once the record points at the new one', async () => {
    const session = await login();
    const node = await registerNode(session.token);
    const job = await submit(session.token);
    const held = (await pollOne(node))!;
    const url = testEnv()
      .service.services!.artifacts.uploadTemplate(testEnv().url, { id: job.job_id, timeoutSeconds: 3600 }, held.leaseId)
      .replace('{id}', 'out');
    assert.equal((await send('PUT', url, { body: Buffer.from('one') })).status, 200);
    assert.equal((await send('PUT', url, { body: Buffer.from('two') })).status, 200);
    const store = createObjectStore(testEnv().config)!;
    const { objects } = await store.keys(`${session.user.workspaceId}/${job.job_id}/`);
    assert.equal(objects.length, 1, `${objects}`);
    const got = await send('GET', (await presignDownload(session.token, job.job_id, 'out')).url);
    assert.equal(got.body.toString(), 'two');
  });

  it("a heartbeat naming another workspace's job does not wait on that job's lock", async () => {
    const a = await heldJob();
    const b = await newWorkspace();
    const nodeB = await registerNode(b.key);
    const db = testEnv().db;
    const trx = await db.transaction();
    try {
      // A's job row is locked, as a claim committing or a log push would hold it.
      await trx('jobs').where({ id: a.job.job_id }).forUpdate().first('id');
      const beat = post(
        '/compute/nodes/heartbeat',
        { nodeId: nodeB.nodeId, runningJobs: [a.job.job_id] },
        nodeB.nodeKey,
      );
      const outcome = await Promise.race([
        beat.then((r) => ({ answered: r })),
        waitFor('a backend waiting on a row lock', async () => {
          const { rows } = await db.raw(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%from "jobs"%' AND ${OUR_SESSIONS}`,
          );
          return rows[0].n > 0;
        }).then(() => ({ blocked: true })),
      ]);
      assert.ok('answered' in outcome, "B's heartbeat waited on A's lock");
      assert.equal(outcome.answered.status, 200);
      assert.deepEqual(outcome.answered.body.payload.cancel, [a.job.job_id], 'not B’s job: B is told to drop it');
    } finally {
      await trx.rollback();
    }
  });

  it("a result is refused from any agent but the lease's, even where the read model lags", async () => {
    const { key, node, job } = await heldJob();
    const other = await registerNode(key, {}, 'other');
    // The attempt row is the read model's; the workflow is the one that must know the agent.
    await testEnv().db('job_attempts').where({ lease_id: job.leaseId }).delete();
    const reply = await post(
      '/compute/nodes/result',
      { nodeId: other.nodeId, job_id: job.job_id, leaseId: job.leaseId, exitCode: 0, runtimeMs: 1 },
      other.nodeKey,
    );
    assert.equal(reply.status, 409, JSON.stringify(reply.body));
    assert.equal(reply.body.code, 'job.not_assigned');
    assert.equal((await retrieve(key, job.job_id)).state, 'running');
    await ok('/compute/nodes/result', resultOf(node, job, 0), node.nodeKey);
    assert.equal((await retrieve(key, job.job_id)).state, 'succeeded');
  });

  it('a job lost by its agent and handed to it again is not stopped for the lost attempt', async () => {
    // A restarted agent (same node) misses the heartbeats of the attempt it ran: that attempt is
    // lost and asks for a kill; the requeued job can come back to the same node. Found by the
    // fault soak: the next poll's `cancel` named the job, and the agent killed its new attempt.
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const sub = await submit(key, { timeoutSeconds: 120 });
    const first = (await pollOne(node))!;
    assert.equal(first.job_id, sub.job_id);
    const second = await waitFor('the lost job handed to the same node again', async () => {
      const held = await pollOne(node, 1);
      return held?.job_id === sub.job_id ? held : undefined;
    });
    assert.equal(second.attempt, 2);
    const lost = await testEnv().db('job_attempts').where({ lease_id: first.leaseId }).first();
    assert.equal(lost.end_reason, 'agent_lost');
    const poll = await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 0 }, node.nodeKey);
    assert.deepEqual(poll.cancel, [], 'the poll asks to stop nothing the node holds');
    const beat = await ok('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [sub.job_id] }, node.nodeKey);
    assert.deepEqual(beat.cancel, []);
    await ok('/compute/nodes/result', resultOf(node, second, 0), node.nodeKey);
    assert.equal((await retrieve(key, sub.job_id)).state, 'succeeded');
  });
});
