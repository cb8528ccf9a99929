// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { suiteClient, suiteDataConverter } from '../support/temporal-client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { waitFor } from '../support/agents';
import { quietLog, sessionsNamed, testEnv } from '../support/env';
import { newWorkspace, ok, pollOne, post, registerNode, resultOf, retrieve } from '../support/http';
import { workflowIdOf } from '../../src/temporal/job-workflow-client';

const POOL = 3;
const POLLS = 5;
const IN_FLIGHT = 4;

describe('polls hold at most half the database pool across Temporal calls', () => {
  // An API whose jobs' workflows no worker serves yet: every assign Update hangs until its budget.
  const taskQueue = `unserved-${Date.now()}`;
  // This API's sessions by name: the suite's own service shares the server, and its transactions
  // are idle between their statements for a moment, which is none of this test's business.
  const sessions = `claim-pool-${process.pid}`;
  let api: ServiceProcess;
  before(async () => {
    const config = testEnv().configWith({
      DATABASE_URL: sessionsNamed(testEnv().config.databaseUrl!, sessions),
      TEMPORAL_TASK_QUEUE: taskQueue,
      DB_POOL_MAX: String(POOL),
      CLAIMS_IN_FLIGHT_MAX: String(IN_FLIGHT),
      // A counted agent loss would fail the job at once.
      AGENT_LOSS_MAX_ATTEMPTS: '1',
      AGENT_LOST_AFTER_MS: '1500',
    });
    api = await startServiceProcess({ config, log: quietLog, api: true, worker: false });
  });
  after(() => api?.stop());

  it('keeps every other route answering while claims wait on a worker, and an assignment applied late costs no agent loss', async function () {
    this.timeout(90_000);
    const { key, workspaceId } = await newWorkspace();
    const url = api.url!;
    const jobIds: string[] = [];
    for (let i = 0; i < POLLS; i++)
      jobIds.push((await ok('/compute/jobs/submit', { type: 'COMMAND', command: `echo ${i}` }, key, url)).job_id);
    const nodes: Array<{ nodeId: string; nodeKey: string }> = [];
    for (let i = 0; i < POLLS; i++) nodes.push(await registerNode(key, {}, `n${i}`));

    let pollsDone = false;
    const polls = Promise.all(
      nodes.map((n) => post('/compute/nodes/poll', { nodeId: n.nodeId, waitSeconds: 0 }, n.nodeKey, url)),
    ).finally(() => (pollsDone = true));
    // As many claims as the instance allows are reserved and waiting: more than its connections.
    // Half the pool (one connection) may hold a claim's reservation uncommitted while its run is
    // asked; the others commit theirs first.
    const held = Math.floor(POOL / 2);
    await waitFor('claims reserved up to the in-flight bound', async () => {
      const [{ n }] = await testEnv()
        .db('jobs')
        .where({ workspace_id: workspaceId })
        .whereNotNull('claimed_until')
        .count<{ n: string }[]>('* as n');
      return Number(n) === IN_FLIGHT - held;
    });
    // A transaction held across an Update sits idle for seconds; the gap between two statements
    // of a transaction lasts well under 250 ms.
    const heldNow = async () =>
      (
        await testEnv().db.raw(
          `SELECT query FROM pg_stat_activity WHERE application_name = ? AND state LIKE 'idle in transaction%' AND state_change < now() - interval '250 milliseconds'`,
          [sessions],
        )
      ).rows.length;
    await waitFor('the held claim to sit idle in its transaction', async () => (await heldNow()) === held);
    // Sampled for a second while the Updates hang: no more than that one.
    for (let i = 0; i < 5; i++) {
      assert.equal(await heldNow(), held, 'at most half the pool is held in a transaction while a workflow is asked');
      await new Promise((r) => setTimeout(r, 200));
    }
    const { rows: ours } = await testEnv().db.raw(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ?`,
      [sessions],
    );
    assert.ok(ours[0].n > 0, "the check above looks at this API's sessions");
    const list = await post('/compute/jobs/list', {}, key, url);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.body.payload.jobs.length, POLLS);
    assert.equal(pollsDone, false, 'the list answered while every claim was still waiting');

    const answers = await polls;
    // The claims that waited on the workflow failed as unavailable; the poll past the bound,
    // which could not wait (waitSeconds 0), was answered with nothing.
    assert.equal(answers.filter((a) => a.status === 503).length, IN_FLIGHT, JSON.stringify(answers.map((a) => a.body)));
    assert.deepEqual(
      answers.filter((a) => a.status === 200).map((a) => a.body.payload.jobs),
      [[]],
    );

    // A worker appears: whatever the timed-out Updates did, the withdrawn leases cost no agent loss.
    const connection = await NativeConnection.connect({ address: testEnv().config.temporal.address! });
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: testEnv().bundle,
      activities: createActivities({ db: testEnv().db }),
      dataConverter: await suiteDataConverter(),
    });
    await worker.runUntil(async () => {
      const client = await suiteClient();
      // Settled: back in the queue (or never taken), and claimable again.
      await waitFor(
        'every job queued again',
        async () => {
          const states = await Promise.all(
            jobIds.map(
              async (id) => (await client.workflow.getHandle(workflowIdOf(id)).query('state')) as { state: string },
            ),
          );
          return states.every((s) => s.state === 'QUEUED');
        },
        30_000,
      );
      const node = nodes[0];
      for (let i = 0; i < POLLS; i++) {
        const held = (await pollOne(node, 5))!;
        assert.ok(held, 'each job is claimable again');
        await ok('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey);
      }
      for (const id of jobIds) assert.equal((await retrieve(key, id)).state, 'succeeded');
      // The timed-out assignments did reach the workflows once a worker ran them (an accepted
      // `assign` Update in the history), and were withdrawn: the scenario this test is about.
      const late = await Promise.all(
        jobIds.map(async (id) => {
          const events = (await client.workflow.getHandle(workflowIdOf(id)).fetchHistory()).events ?? [];
          return events.filter(
            (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'assign',
          ).length;
        }),
      );
      assert.ok(
        late.some((n) => n >= 2),
        `a late assignment applied and the job was assigned again after it: ${late}`,
      );
    });
    await connection.close();
  });
});
