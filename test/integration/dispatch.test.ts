import assert from 'node:assert/strict';
import { suiteClient } from '../support/temporal-client';
import { Connection } from '@temporalio/client';
import { workflowIdOf } from '../../src/temporal/job-workflow-client';
import { type JobSnapshot, stateQuery } from '../../workflows/definitions';
import { waitFor } from '../support/agents';
import { testEnv, OUR_SESSIONS } from '../support/env';
import { newWorkspace, ok, pollOne, registerNode, retrieve, sleep, submit } from '../support/http';

describe('dispatch', () => {
  it('wakes a long poll within tens of milliseconds of a submit', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    await pollOne(node, 0); // warm the path
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const polling = ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 10 }, node.nodeKey).then((out) => ({
        out,
        at: Date.now(),
      }));
      await new Promise((r) => setTimeout(r, 300));
      const submittedAt = Date.now();
      const sub = await submit(key);
      const { out, at } = await polling;
      assert.equal(out.jobs[0].job_id, sub.job_id);
      latencies.push(at - submittedAt);
      await ok(
        '/compute/nodes/result',
        { nodeId: node.nodeId, job_id: sub.job_id, leaseId: out.jobs[0].leaseId, exitCode: 0, runtimeMs: 1 },
        node.nodeKey,
      );
    }
    latencies.sort((a, b) => a - b);
    process.stderr.write(`      submit→poll (incl. submit round trip) ms: ${latencies.join(', ')}\n`);
    // Generous: well under a poll interval of any kind, also on a loaded 2-core CI machine.
    assert.ok(latencies[2] < 250, `median ${latencies[2]} ms`);
  });

  it('hands out the highest priority first, then the oldest, and honours the selector', async () => {
    const { key } = await newWorkspace();
    const low = await submit(key, { priority: 1 });
    const oldHigh = await submit(key, { priority: 5 });
    const newHigh = await submit(key, { priority: 5 });
    const gpuOnly = await submit(key, { priority: 5, selector: { gpu: 'a100' } });
    const cpuNode = await registerNode(key, { os: 'linux' });
    const order = [];
    for (let i = 0; i < 3; i++) order.push((await pollOne(cpuNode, 0))!.job_id);
    assert.deepEqual(order, [oldHigh.job_id, newHigh.job_id, low.job_id]);
    assert.equal(await pollOne(cpuNode, 0), undefined, 'the gpu job does not match');
    const gpuNode = await registerNode(key, { gpu: 'a100', os: 'linux' });
    assert.equal((await pollOne(gpuNode, 0))!.job_id, gpuOnly.job_id);
  });

  it('an assignment is written before its poll is answered: a heartbeat, log push or upload with its lease waits for the write instead of refusing it, and the client reads the job running once the agent holds it', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const db = testEnv().db;
    const LOCK = 7_321_001;
    // Every projection of this node's assignment (the claim's, or the workflow's own) waits on an
    // advisory lock this test holds, holding the job's row: the window stays open until released.
    await db.raw(
      `CREATE OR REPLACE FUNCTION test_hold_assignment() RETURNS trigger AS $$ BEGIN PERFORM pg_advisory_xact_lock(${LOCK}); RETURN NEW; END $$ LANGUAGE plpgsql`,
    );
    await db.raw(
      `CREATE TRIGGER test_hold_assignment BEFORE INSERT ON job_attempts FOR EACH ROW WHEN (NEW.agent_id = '${node.nodeId}') EXECUTE FUNCTION test_hold_assignment()`,
    );
    const holder = await db.transaction();
    const connection = await Connection.connect({ address: testEnv().config.temporal.address! });
    try {
      await holder.raw('SELECT pg_advisory_xact_lock(?)', [LOCK]);
      const sub = await submit(key, { artifacts: { paths: ['*'] } });
      const poll = ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 5 }, node.nodeKey);
      // The workflow knows the lease as soon as it assigned the job; the read model does not yet.
      const workflow = (await suiteClient(connection)).workflow.getHandle(workflowIdOf(sub.job_id));
      const leaseId: string = await waitFor(
        'the workflow to assign the job',
        async () => ((await workflow.query(stateQuery)) as JobSnapshot).leaseId ?? undefined,
      );
      const uploadUrl = testEnv()
        .service.services!.artifacts.uploadTemplate(testEnv().url, { id: sub.job_id, timeoutSeconds: 3600 }, leaseId)
        .replace('{id}', 'early');
      const calls = Promise.all([
        ok('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [sub.job_id] }, node.nodeKey),
        ok(
          '/compute/nodes/logs',
          { nodeId: node.nodeId, job_id: sub.job_id, leaseId, lines: [{ seq: 1, stream: 'stdout', line: 'early' }] },
          node.nodeKey,
        ),
        fetch(uploadUrl, { method: 'PUT', body: 'x' }),
      ]);
      await waitFor('the three calls to wait on the job row', async () => {
        const { rows } = await db.raw(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE 'select%from %jobs%for %' AND ${OUR_SESSIONS}`,
        );
        return rows[0].n >= 3;
      });
      const early = await Promise.race([
        poll.then(() => 'answered'),
        new Promise((r) => setTimeout(() => r('waiting'), 500)),
      ]);
      assert.equal(early, 'waiting', 'the poll is not answered while its assignment is unwritten');
      await holder.commit();
      const [held] = (await poll).jobs;
      assert.deepEqual([held.job_id, held.leaseId], [sub.job_id, leaseId]);
      const seen = await retrieve(key, sub.job_id);
      const [beat, pushed, upload] = await calls;
      assert.deepEqual(
        [seen.state, seen.nodeId],
        ['running', node.nodeId],
        'the client reads the job as the agent was told it',
      );
      assert.deepEqual(beat.cancel, [], 'the heartbeat does not tell the agent to stop the job it was just given');
      assert.equal(pushed.accepted, 1);
      assert.equal(upload.status, 200);
      await ok(
        '/compute/nodes/result',
        { nodeId: node.nodeId, job_id: sub.job_id, leaseId, exitCode: 0, runtimeMs: 1 },
        node.nodeKey,
      );
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
      await connection.close();
      await db.raw('DROP TRIGGER IF EXISTS test_hold_assignment ON job_attempts');
      await db.raw('DROP FUNCTION IF EXISTS test_hold_assignment()');
    }
  });

  it('hands a job to exactly one of many concurrent pollers', async () => {
    const { key } = await newWorkspace();
    const nodes = await Promise.all([1, 2, 3, 4].map((i) => registerNode(key, {}, `n${i}`)));
    const polls = nodes.map((n) => ok('/compute/nodes/poll', { nodeId: n.nodeId, waitSeconds: 2 }, n.nodeKey));
    await new Promise((r) => setTimeout(r, 200));
    const sub = await submit(key);
    const results = await Promise.all(polls);
    const winners = results.filter((r) => r.jobs.length > 0);
    assert.equal(winners.length, 1);
    assert.equal(winners[0].jobs[0].job_id, sub.job_id);
  });

  it('does not hand a job to a long poll whose agent hung up', async () => {
    const { key } = await newWorkspace();
    const gone = await registerNode(key, {}, 'gone');
    const hangUp = new AbortController();
    const dropped = fetch(`${testEnv().url}/api/compute/nodes/poll`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': gone.nodeKey },
      body: JSON.stringify({ nodeId: gone.nodeId, waitSeconds: 20 }),
      signal: hangUp.signal,
    }).catch(() => 'aborted');
    await sleep(200);
    hangUp.abort();
    assert.equal(await dropped, 'aborted');
    await sleep(200);
    const sub = await submit(key);
    const live = await registerNode(key, {}, 'live');
    const job = await pollOne(live, 5);
    assert.equal(job?.job_id, sub.job_id, 'the job went to the agent that is still there');
    assert.equal(job?.attempt, 1, 'at once, not after the gone agent was counted lost');
  });

  it("never hands a job to another workspace's node", async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    await submit(a.key);
    const nodeB = await registerNode(b.key);
    assert.equal(await pollOne(nodeB, 0), undefined);
  });
});
