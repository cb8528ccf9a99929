import { suiteWorkflows } from '../support/jobs-service';
import assert from 'node:assert/strict';
import { claimsRun } from '../../src/metrics/registry';
import { waitFor } from '../support/agents';
import { quietLog, testEnv } from '../support/env';
import { suiteClient } from '../support/temporal-client';
import { silentAttempts } from '../../src/agents/liveness';
import { claimSome } from '../../src/jobs/dispatch';
import { createTransitions } from '../../src/jobs/transitions';
import { newWorkspace, ok, registerNode, resultOf, submit } from '../support/http';
import { temporalCli } from '../support/temporal-cli';

// A poll for several jobs takes them in batches (src/jobs/dispatch.ts, claimSome): one statement
// reserves up to what it asks for, their runs' assign Updates go out together, and their
// assignments are written in one transaction before the poll answers.

const claimsBy = async (outcome: string) =>
  (await claimsRun.get()).values.filter((v) => v.labels.outcome === outcome).reduce((s, v) => s + v.value, 0);

type Polled = { jobs: Array<{ job_id: string; leaseId: string; attempt: number }> };

describe('a poll for several queued jobs', function () {
  this.timeout(60_000);
  const db = () => testEnv().db;

  it('takes them in one claim, best first, each assignment written before the answer', async () => {
    const { key } = await newWorkspace();
    const lane = { lane: 'batch' };
    const submitted = [];
    for (const priority of [1, 5, 3, 5]) submitted.push(await submit(key, { priority, selector: lane }));
    const node = await registerNode(key, lane);
    const claimsBefore = await claimsBy('assigned');

    const polled: Polled = await ok(
      '/compute/nodes/poll',
      { nodeId: node.nodeId, maxJobs: 3, waitSeconds: 0 },
      node.nodeKey,
    );

    // Priority first, then the oldest: the two of priority 5 in the order submitted, then the 3.
    const [low, high, middle, highLater] = submitted.map((s) => s.job_id);
    assert.deepEqual(
      polled.jobs.map((j) => j.job_id),
      [high, highLater, middle],
    );
    assert.equal((await claimsBy('assigned')) - claimsBefore, 1, 'one claim took all three');
    const rows = await db()('jobs')
      .whereIn('id', [high, highLater, middle, low])
      .select('id', 'state', 'lease_id', 'agent_id', 'claimed_by');
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const job of polled.jobs)
      assert.deepEqual(byId.get(job.job_id), {
        id: job.job_id,
        state: 'RUNNING',
        lease_id: job.leaseId,
        agent_id: node.nodeId,
        claimed_by: null,
      });
    assert.deepEqual(byId.get(low), { id: low, state: 'QUEUED', lease_id: null, agent_id: null, claimed_by: null });

    // Each lease holds its job: the agent's results are taken.
    for (const job of polled.jobs) await ok('/compute/nodes/result', resultOf(node, job, 0), node.nodeKey);
    const states = await db()('jobs').whereIn('id', [high, highLater, middle]).pluck('state');
    assert.deepEqual(states, ['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
    await ok('/compute/jobs/cancel', { job_id: low }, key);
  });

  it('answers with the stop list read in the trip that wrote the assignments', async () => {
    const { key } = await newWorkspace();
    const lane = { lane: 'stops' };
    const node = await registerNode(key, lane);
    const stopped = await submit(key, { selector: lane, command: 'sleep 60' });
    const held: Polled = await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 0 }, node.nodeKey);
    assert.equal(held.jobs[0].job_id, stopped.job_id);
    // Cancelled while its agent says nothing: past the grace its attempt ends asking for a kill.
    await ok('/compute/jobs/cancel', { job_id: stopped.job_id }, key);
    await waitFor('the cancel to end the attempt', async () => {
      const row = await db()('jobs').where({ id: stopped.job_id }).first('state');
      return row.state === 'CANCELLED';
    });
    const next = await submit(key, { selector: lane });

    const polled: Polled & { cancel: string[] } = await ok(
      '/compute/nodes/poll',
      { nodeId: node.nodeId, maxJobs: 2, waitSeconds: 0 },
      node.nodeKey,
    );

    assert.deepEqual(
      polled.jobs.map((j) => j.job_id),
      [next.job_id],
    );
    assert.deepEqual(polled.cancel, [stopped.job_id], 'the job it still runs is to stop; the one handed now is not');
    await ok('/compute/nodes/result', resultOf(node, polled.jobs[0], 0), node.nodeKey);
  });

  it('passes over a job its run refuses and hands out the rest of the batch', async () => {
    const { key } = await newWorkspace();
    const lane = { lane: 'refused' };
    const [first, refused, last] = [
      await submit(key, { selector: lane }),
      await submit(key, { selector: lane }),
      await submit(key, { selector: lane }),
    ].map((s) => s.job_id);
    // Its row still queued, its run gone: the claim reserves it and the assign Update is refused.
    await temporalCli('terminate', '--workflow-id', refused, '--reason', 'within a batch');
    const node = await registerNode(key, lane);

    const polled: Polled = await ok(
      '/compute/nodes/poll',
      { nodeId: node.nodeId, maxJobs: 3, waitSeconds: 0 },
      node.nodeKey,
    );

    assert.deepEqual(
      polled.jobs.map((j) => j.job_id),
      [first, last],
    );
    await waitFor('the claim ended the refused job', async () => {
      const row = await db()('jobs').where({ id: refused }).first('state', 'claimed_by');
      return row.state === 'CANCELLED' && row.claimed_by === null;
    });
    for (const job of polled.jobs) await ok('/compute/nodes/result', resultOf(node, job, 0), node.nodeKey);
  });

  it("reserves in the transaction its assignments commit in: no one sees a plain node's reservation while the runs answer", async () => {
    const { key, workspaceId } = await newWorkspace();
    const { config } = testEnv();
    const client = await suiteClient();
    const real = suiteWorkflows(client);
    // What another connection reads of each row while its run is asked to assign it.
    const seen: Array<string | null> = [];
    const workflows: typeof real = Object.create(real, {
      assign: {
        value: async (jobId: string, input: Parameters<typeof real.assign>[1]) => {
          seen.push((await db()('jobs').where({ id: jobId }).first('claimed_by')).claimed_by);
          return real.assign(jobId, input);
        },
      },
    });
    const transitions = createTransitions({ db: db(), workflows, config, log: quietLog, silentAttempts });
    const claim = async (count: number, lane: Record<string, string>, capacity?: Record<string, number>) => {
      const jobs = [];
      for (let i = 0; i < count; i++) jobs.push(await submit(key, { selector: lane }));
      const node = await registerNode(key, lane);
      const agent = {
        id: node.nodeId,
        workspace_id: workspaceId,
        labels: lane,
        pool: 'self',
        region: null,
        registered_with_key_id: null,
        ...(capacity && { free: { cpu: 4, memoryMb: 4096, gpu: 0, ...capacity } }),
      };
      seen.length = 0;
      const taken = await claimSome(
        db(),
        transitions,
        agent,
        [],
        { reservationSeconds: 30, workflows, log: quietLog },
        {
          limit: 5,
        },
      );
      assert.deepEqual(taken.map((a) => a.job.id).sort(), jobs.map((j) => j.job_id).sort());
      const rows = await db()('jobs')
        .whereIn(
          'id',
          jobs.map((j) => j.job_id),
        )
        .select('state', 'agent_id', 'claimed_by');
      assert.deepEqual(
        rows,
        jobs.map(() => ({ state: 'RUNNING', agent_id: node.nodeId, claimed_by: null })),
      );
      for (const j of jobs) await ok('/compute/jobs/cancel', { job_id: j.job_id }, key);
      return { seen: [...seen], nodeId: node.nodeId };
    };
    try {
      const plain = await claim(2, { lane: 'held' });
      assert.deepEqual(plain.seen, [null, null], 'the reservation commits with the assignments');
      // A node with a capacity reserves stepwise: free room counts its reservations, which must be seen.
      const sized = await claim(1, { lane: 'sized' }, { cpu: 8 });
      assert.deepEqual(sized.seen, [sized.nodeId], 'reserved and committed before its run is asked');
    } finally {
      await client.connection.close();
    }
  });
});
