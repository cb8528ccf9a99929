import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { abortedWithItsTask } from '../../src/temporal/grpc-errors';
import { assignUpdate, resultUpdate, stateQuery } from '../../workflows/definitions';
import { testEnv } from '../support/env';
import { FakeActivities, finalOf, startJob, workflowInput } from '../support/workflow-harness';

// A job's assignment reaching a worker that does not hold its run (the worker that ran it was
// killed, or evicted it): the worker rebuilds the run from its history and gets the Update in the
// run's first activation, before the run's handlers exist. The run must then record what a replay
// of its history decides again, or every later task of the run fails as nondeterministic and the
// job is stuck RUNNING for good (found by the fault soak: a worker killed between a job's submit
// and its hand-out).
describe('job workflow: an assignment to a run no worker holds', () => {
  let env: TestWorkflowEnvironment;
  const fake = new FakeActivities();
  const taskQueue = `wf-cold-${Date.now()}`;

  before(async () => {
    env = await TestWorkflowEnvironment.createFromExistingServer({ address: testEnv().config.temporal.address! });
  });
  after(async () => {
    await env.teardown();
  });

  const worker = () =>
    Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: testEnv().bundle,
      activities: fake.activities,
    });

  /**
   * The server aborts an Update whose workflow task it failed (a task sent to the sticky queue of
   * the worker that has stopped, until that times out): nothing of it was applied. The service's
   * client sends it again under the same update ID (src/temporal/job-workflow-client.ts), and so
   * does this test.
   */
  async function sentUntilTaken<T>(send: (updateId: string) => Promise<T>): Promise<T> {
    const updateId = randomUUID();
    for (let pause = 200; ; pause *= 2) {
      try {
        return await send(updateId);
      } catch (err) {
        if (!abortedWithItsTask(err) || pause > 5_000) throw err;
        await sleep(pause);
      }
    }
  }

  it('replays the history it recorded, and the job goes on', async () => {
    const first = await worker();
    const handle = await first.runUntil(async () => {
      const h = await startJob(env.client, taskQueue, workflowInput());
      await h.query(stateQuery); // its first task has run: QUEUED, waiting
      return h;
    });
    // No worker holds the run now; the next one takes the assignment with its history.
    const second = await worker();
    const running = await second.runUntil(() =>
      sentUntilTaken((updateId) =>
        handle.executeUpdate(assignUpdate, { updateId, args: [{ leaseId: 'lease-cold', agentId: 'agent-cold' }] }),
      ),
    );
    assert.equal(running.snapshot.state, 'RUNNING');
    const history = await handle.fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: testEnv().bundle, replayName: 'cold assignment' },
      history,
      handle.workflowId,
    );
    // And a third worker, rebuilding the run again, takes its result.
    const third = await worker();
    await third.runUntil(async () => {
      await sentUntilTaken((updateId) =>
        handle.executeUpdate(resultUpdate, {
          updateId,
          args: [{ leaseId: 'lease-cold', agentId: 'agent-cold', exitCode: 0, runtimeMs: 5 }],
        }),
      );
      const { snapshot } = await finalOf(handle);
      assert.equal(snapshot.state, 'SUCCEEDED');
    });
  });
});
