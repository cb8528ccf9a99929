import assert from 'node:assert/strict';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import {
  REFUSAL,
  RUN_FAILURE,
  assignUpdate,
  cancelUpdate,
  recheckAgentSignal,
  resultUpdate,
} from '../../workflows/definitions';
import { testEnv } from '../support/env';
import {
  FakeActivities,
  UNIT_TIMINGS,
  finalOf,
  startJob,
  waitForSnapshot,
  workflowInput,
} from '../support/workflow-harness';

// The job workflow alone, on the suite's Temporal dev server, with stand-in activities. The dev
// server cannot skip time (that needs the Java test server, which cannot be fetched here), so the
// timer paths run on real, shortened durations.
describe('job workflow (TestWorkflowEnvironment)', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const fake = new FakeActivities();
  const taskQueue = `wf-unit-${Date.now()}`;

  before(async () => {
    env = await TestWorkflowEnvironment.createFromExistingServer({ address: testEnv().config.temporal.address! });
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: testEnv().bundle,
      activities: fake.activities,
    });
    running = worker.run();
  });

  after(async () => {
    worker.shutdown();
    await running;
    await env.teardown();
  });

  const start = (overrides?: Parameters<typeof workflowInput>[0]) =>
    startJob(env.client, taskQueue, workflowInput(overrides));
  const assign = (handle: Awaited<ReturnType<typeof start>>, leaseId: string) =>
    handle.executeUpdate(assignUpdate, { args: [{ leaseId, agentId: 'agent-unit' }] }).then((t) => t.snapshot);
  const refusalOf = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => assert.fail('expected a refusal'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure, String(err));
    return err.cause.type;
  };

  it('times a running job out on its durable timer and asks for a kill', async () => {
    const handle = await start({ timeoutSeconds: 1 });
    const running = await assign(handle, 'lease-t1');
    await assert.rejects(
      handle.result(),
      (err: WorkflowFailedError) => (err.cause as ApplicationFailure).type === RUN_FAILURE.timedOut,
      'the run closes as Failed',
    );
    const { snapshot: done, ends } = await finalOf(handle);
    assert.equal(done.state, 'TIMED_OUT');
    assert.equal(done.failureReason, 'timeout');
    assert.ok(Date.parse(done.finishedAt!) - Date.parse(running.startedAt!) >= 1000);
    assert.deepEqual(
      ends.map((e) => [e.leaseId, e.reason, e.kill]),
      [['lease-t1', 'timeout', true]],
    );
    // The assignment's caller wrote RUNNING; the run wrote only what it decided alone.
    assert.deepEqual(fake.statesOf(done.jobId), ['TIMED_OUT']);
    assert.deepEqual(fake.projectionsOf(done.jobId).at(-1)!.attemptEnds, ends);
  });

  it('requeues after each agent loss with doubling backoff, then fails with agent_lost', async () => {
    // A backoff long enough that the hand-out tried during it arrives while it still runs: seen
    // through a polled query and sent as an Update, that takes longer than 400 ms on a loaded machine.
    const timings = { ...UNIT_TIMINGS, agentLossBackoffMs: 2000 };
    const handle = await startJob(env.client, taskQueue, workflowInput({}, timings));
    const availableAts: string[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const leaseId = `lease-l${attempt}`;
      await waitForSnapshot(handle, (s) => s.state === 'QUEUED' && Date.parse(s.availableAt) <= Date.now());
      const held = await assign(handle, leaseId);
      assert.equal(held.attempt, attempt);
      fake.silent.add(leaseId);
      if (attempt < 3) {
        const queued = await waitForSnapshot(handle, (s) => s.attempt === attempt + 1);
        availableAts.push(queued.availableAt);
        assert.equal(
          await refusalOf(assign(handle, 'too-early')),
          REFUSAL.invalidState,
          'no hand-out during the backoff',
        );
      }
    }
    const { snapshot: done, ends } = await finalOf(handle);
    assert.equal(done.state, 'FAILED');
    assert.equal(done.failureReason, 'agent_lost');
    assert.deepEqual(
      ends.map((e) => e.reason),
      ['agent_lost', 'agent_lost', 'agent_lost'],
    );
    assert.deepEqual(
      fake.statesOf(done.jobId),
      ['QUEUED', 'FAILED'],
      'each loss and each backoff end written by the run',
    );
    // The backoffs, on the workflow's own clock: each requeue's availableAt less the time of the
    // workflow task that made it (the task that upserted JobState=QUEUED).
    const events = (await handle.fetchHistory()).events ?? [];
    const byId = new Map(events.map((e) => [Number(e.eventId), e]));
    const msOf = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
      Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
    const requeuedAt = events
      .filter((e) => {
        const field = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.JobState;
        return field?.data && JSON.parse(Buffer.from(field.data).toString()) === 'QUEUED';
      })
      .map((e) => {
        const completed = byId.get(
          Number(e.upsertWorkflowSearchAttributesEventAttributes!.workflowTaskCompletedEventId),
        );
        return msOf(byId.get(Number(completed!.workflowTaskCompletedEventAttributes!.startedEventId))!.eventTime);
      });
    const backoffs = availableAts.map((at, i) => Date.parse(at) - requeuedAt[i]);
    assert.deepEqual(backoffs, [timings.agentLossBackoffMs, 2 * timings.agentLossBackoffMs], `backoffs ${backoffs}`);
  });

  it('writes a backoff that ended while its requeue was being written again, so waiting agents are woken', async () => {
    const handle = await start();
    await assign(handle, 'lease-b1');
    // The requeue's write lands within the backoff, and its activity finishes after the backoff.
    fake.projectionTailMs = UNIT_TIMINGS.agentLossBackoffMs * 2;
    fake.silent.add('lease-b1');
    const queued = await waitForSnapshot(handle, (s) => s.attempt === 2);
    const wakes = () =>
      fake.projections.some(
        (p, i) =>
          p.snapshot.jobId === queued.jobId &&
          p.snapshot.attempt === 2 &&
          fake.writtenAt[i] >= Date.parse(queued.availableAt),
      );
    for (const until = Date.now() + 10_000; !wakes() && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 50));
    fake.projectionTailMs = 0;
    const writes = fake.projectionsOf(queued.jobId).map((p) => `${p.snapshot.state} v${p.snapshot.version}`);
    assert.ok(wakes(), `a write of attempt 2 once it is claimable (which wakes agents); writes: ${writes.join(', ')}`);
    await handle.executeUpdate(cancelUpdate);
  });

  it('keeps a job whose agent stays alive past several loss periods', async () => {
    const handle = await start();
    await assign(handle, 'lease-alive');
    await new Promise((r) => setTimeout(r, UNIT_TIMINGS.agentLostAfterMs * 3));
    const mid = await waitForSnapshot(handle, () => true);
    assert.equal(mid.state, 'RUNNING');
    assert.equal(mid.attempt, 1);
    const done = (
      await handle.executeUpdate(resultUpdate, { args: [{ leaseId: 'lease-alive', exitCode: 0, runtimeMs: 5 }] })
    ).snapshot;
    assert.equal(done.state, 'SUCCEEDED');
  });

  it('ends a cancelled running job after the grace when the agent never confirms', async () => {
    const handle = await start();
    await assign(handle, 'lease-c1');
    const cancelling = (await handle.executeUpdate(cancelUpdate)).snapshot;
    assert.equal(cancelling.state, 'CANCELLING');
    const askedAt = Date.now();
    const { snapshot: done, ends } = await finalOf(handle);
    assert.equal(done.state, 'CANCELLED');
    assert.ok(Date.parse(done.finishedAt!) - askedAt >= UNIT_TIMINGS.cancelGraceMs - 50);
    assert.deepEqual(
      ends.map((e) => [e.reason, e.kill]),
      [['cancelled', true]],
    );
    assert.deepEqual(fake.statesOf(done.jobId), ['CANCELLED'], 'the grace is for the run alone to write');
  });

  it('ends a cancelled running job at once when the agent confirms', async () => {
    const handle = await start();
    await assign(handle, 'lease-c2');
    const cancelling = await handle.executeUpdate(cancelUpdate);
    assert.deepEqual(
      cancelling.ends.map((e) => [e.leaseId, e.reason, e.kill]),
      [['lease-c2', 'cancelled', true]],
      'the cancel answers the kill for its caller to write',
    );
    const { snapshot: done, ends } = await handle.executeUpdate(resultUpdate, {
      args: [{ leaseId: 'lease-c2', exitCode: 143, runtimeMs: 9 }],
    });
    assert.equal(done.state, 'CANCELLED');
    assert.equal(done.exitCode, 143);
    assert.deepEqual(
      ends.map((e) => [e.reason, e.result?.exitCode]),
      [
        ['cancelled', undefined],
        ['result', 143],
      ],
    );
    assert.deepEqual((await finalOf(handle)).snapshot, done);
    assert.deepEqual(
      fake.projectionsOf(done.jobId),
      [],
      'no activity: the callers of the Updates wrote every transition',
    );
  });

  it('retries a failed attempt after its backoff and refuses a hand-out before it', async () => {
    const handle = await start({ retry: { maxAttempts: 2, backoffSeconds: 1 } });
    await assign(handle, 'lease-r1');
    const failedAt = Date.now();
    const queued = (
      await handle.executeUpdate(resultUpdate, { args: [{ leaseId: 'lease-r1', exitCode: 1, runtimeMs: 3 }] })
    ).snapshot;
    assert.equal(queued.state, 'QUEUED');
    assert.equal(queued.attempt, 2);
    assert.ok(Date.parse(queued.availableAt) - failedAt >= 900, 'backoff of 1 s');
    assert.equal(await refusalOf(assign(handle, 'lease-r2')), REFUSAL.invalidState);
    await waitForSnapshot(handle, (s) => Date.parse(s.availableAt) <= Date.now());
    await assign(handle, 'lease-r2');
    const done = (
      await handle.executeUpdate(resultUpdate, { args: [{ leaseId: 'lease-r2', exitCode: 0, runtimeMs: 3 }] })
    ).snapshot;
    assert.equal(done.state, 'SUCCEEDED');
    // The run completed with that result, in the same task: a stray report finds it closed.
    await assert.rejects(
      handle.executeUpdate(resultUpdate, { args: [{ leaseId: 'lease-x', exitCode: 0, runtimeMs: 1 }] }),
      /already completed/,
    );
  });

  it('requeues a job at once when its agent is removed, without counting it as an agent loss', async () => {
    // One loss allowed: were a removal counted as one, the second would fail the job.
    const handle = await startJob(
      env.client,
      taskQueue,
      workflowInput({}, { ...UNIT_TIMINGS, agentLossMaxAttempts: 2 }),
    );
    await assign(handle, 'lease-g1');
    fake.silent.add('lease-g1');
    fake.removed.add('lease-g1');
    await handle.signal(recheckAgentSignal);
    const queued = await waitForSnapshot(handle, (s) => s.state === 'QUEUED');
    assert.equal(queued.attempt, 2);
    assert.ok(Date.parse(queued.availableAt) <= Date.now(), 'no backoff: claimable at once');
    await assign(handle, 'lease-g2');
    fake.silent.add('lease-g2');
    const lost = await waitForSnapshot(handle, (s) => s.attempt === 3);
    assert.equal(lost.state, 'QUEUED', 'the first real loss requeues: the removal was not counted');
    await handle.executeUpdate(cancelUpdate);
    const { ends } = await finalOf(handle);
    assert.deepEqual(
      ends.map((e) => [e.reason, e.kill]),
      [
        ['deregistered', true],
        ['agent_lost', true],
      ],
    );
  });

  it('requeues a job when its draining agent passes the deadline', async () => {
    const handle = await start();
    await assign(handle, 'lease-d1');
    const deadline = Date.now() + 250;
    fake.drainDeadlines.set('lease-d1', deadline);
    await handle.signal(recheckAgentSignal);
    const queued = await waitForSnapshot(handle, (s) => s.state === 'QUEUED');
    assert.equal(queued.attempt, 2);
    assert.ok(Date.now() >= deadline);
    await handle.executeUpdate(cancelUpdate);
    const { snapshot: done, ends } = await finalOf(handle);
    assert.equal(done.state, 'CANCELLED');
    assert.deepEqual(
      ends.map((e) => [e.reason, e.kill]),
      [['drain_deadline', true]],
    );
    assert.deepEqual(
      fake.statesOf(done.jobId),
      ['QUEUED'],
      'the run wrote the requeue, the caller of the cancel wrote CANCELLED',
    );
  });
});
