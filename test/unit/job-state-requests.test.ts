import assert from 'node:assert/strict';
import type { JobMachine } from '../../workflows/job-machine';
import { REFUSAL, RUN_FAILURE } from '../../workflows/job-model';
import {
  S,
  T0,
  assign,
  cancel,
  iso,
  lease,
  lost,
  machine,
  reasons,
  result,
  run,
  stateOf,
} from '../support/job-machine';

// The job's transitions that a caller asks for (CONTRACT §2): a new run, assign, result and cancel,
// each with its refusals, on the plain state machine (no Temporal, no timers). The run's own moves
// are in job-state-run.test.ts; the workflow's wiring is held by the replay test and job-workflow.test.ts.

describe('job state machine (no server): what callers ask', () => {
  describe('a new run', () => {
    it('starts QUEUED at its attempt and claimable at once; its submitter wrote the row', () => {
      const m = machine({}, { attempt: 3, version: 4 });
      assert.deepEqual(m.snapshot, {
        jobId: 'job_unit',
        state: 'QUEUED',
        attempt: 3,
        leaseId: null,
        agentId: null,
        startedAt: null,
        finishedAt: null,
        exitCode: null,
        runtimeMs: null,
        failureReason: null,
        error: null,
        availableAt: iso(T0),
        version: 4,
      });
      assert.deepEqual(run(m, T0), { writes: [], moves: [], step: { kind: 'idle' } });
    });

    it('writes a manual retry QUEUED first, one version past the row it retries', () => {
      const m = machine({}, { attempt: 2, version: 5, manualRetry: true });
      const { writes, step } = run(m, T0);
      assert.deepEqual(
        writes.map((w) => [w.snapshot.state, w.snapshot.attempt, w.snapshot.version, w.workspaceId, w.attemptEnds]),
        [['QUEUED', 2, 6, 'ws_unit', []]],
      );
      assert.deepEqual(step, { kind: 'idle' });
      assert.deepEqual(run(m, T0).writes, [], 'written once');
    });

    it('answers the state query with the job, its spec and its attempt ends', () => {
      const m = machine();
      assign(m, lease(1), T0);
      cancel(m, T0 + S);
      const view = m.view();
      assert.equal(view.state, 'CANCELLING');
      assert.equal(view.spec.jobId, 'job_unit');
      assert.deepEqual(view.ends, [{ leaseId: 'lease-1', reason: 'cancelled', kill: true, at: iso(T0 + S) }]);
    });
  });

  describe('assign', () => {
    it('QUEUED → RUNNING with startedAt and agentId, answered for its caller to write', () => {
      const m = machine();
      const { answer, move } = assign(m, lease(1), T0 + 5 * S);
      assert.deepEqual(answer, { snapshot: m.snapshot, ends: [] });
      assert.equal(answer.snapshot.state, 'RUNNING');
      assert.equal(answer.snapshot.leaseId, 'lease-1');
      assert.equal(answer.snapshot.agentId, 'agent_1');
      assert.equal(answer.snapshot.startedAt, iso(T0 + 5 * S));
      assert.equal(answer.snapshot.version, 2);
      assert.deepEqual([move?.from.state, move?.to.state], ['QUEUED', 'RUNNING']);
      // The caller writes it; the run waits for the agent's first liveness check.
      assert.deepEqual(run(m, T0 + 5 * S), { writes: [], moves: [], step: { kind: 'wait', until: T0 + 95 * S } });
    });

    it('is refused unless the job is QUEUED', () => {
      const m = machine();
      assign(m, lease(1), T0);
      assert.deepEqual(m.refuseAssign(lease(2), T0), { type: REFUSAL.invalidState, message: 'job is RUNNING' });
      cancel(m, T0);
      assert.deepEqual(m.refuseAssign(lease(2), T0), { type: REFUSAL.invalidState, message: 'job is CANCELLING' });
      result(m, T0, { leaseId: 'lease-1', exitCode: 143 });
      assert.deepEqual(m.refuseAssign(lease(2), T0), { type: REFUSAL.invalidState, message: 'job is CANCELLED' });
    });

    it('is refused while the job waits out a backoff, and taken once it is over', () => {
      const m = machine({ retry: { maxAttempts: 2, backoffSeconds: 10 } });
      assign(m, lease(1), T0);
      result(m, T0 + S, { leaseId: 'lease-1', exitCode: 1 });
      assert.deepEqual(m.refuseAssign(lease(2), T0 + 10 * S), {
        type: REFUSAL.invalidState,
        message: 'job is waiting out a backoff',
      });
      assert.equal(m.refuseAssign(lease(2), T0 + 11 * S), null);
    });

    it('is refused for a withdrawn lease, even when the job is QUEUED', () => {
      const m = machine();
      assert.equal(m.withdrawLease('lease-1', T0), null, 'nothing to requeue');
      assert.deepEqual(m.refuseAssign(lease(1), T0), {
        type: REFUSAL.invalidState,
        message: 'the assignment was withdrawn',
      });
      assert.equal(m.refuseAssign(lease(2), T0), null);
    });
  });

  describe('result', () => {
    it('RUNNING → SUCCEEDED on exit code 0, with the agent runtime, written by its caller', () => {
      const m = machine();
      assign(m, lease(1), T0);
      const { answer, move } = result(m, T0 + 60 * S, { leaseId: 'lease-1', exitCode: 0, runtimeMs: 59_500 });
      assert.equal(answer.snapshot.state, 'SUCCEEDED');
      assert.equal(answer.snapshot.exitCode, 0);
      assert.equal(answer.snapshot.runtimeMs, 59_500);
      assert.equal(answer.snapshot.finishedAt, iso(T0 + 60 * S));
      assert.equal(answer.snapshot.failureReason, null);
      assert.deepEqual(answer.ends, [
        {
          leaseId: 'lease-1',
          reason: 'result',
          kill: false,
          at: iso(T0 + 60 * S),
          result: { leaseId: 'lease-1', exitCode: 0, runtimeMs: 59_500 },
        },
      ]);
      assert.deepEqual([move?.from.state, move?.to.state], ['RUNNING', 'SUCCEEDED']);
      assert.deepEqual(run(m, T0 + 60 * S), { writes: [], moves: [], step: { kind: 'done' } });
      assert.deepEqual(m.final(), { transition: { snapshot: m.snapshot, ends: answer.ends }, failure: null });
    });

    it('RUNNING → FAILED (exit_code) when no retry is left, and the run closes as failed', () => {
      const m = machine();
      assign(m, lease(1), T0);
      const { answer } = result(m, T0 + S, { leaseId: 'lease-1', exitCode: 2 });
      assert.deepEqual(
        [answer.snapshot.state, answer.snapshot.failureReason, answer.snapshot.exitCode],
        ['FAILED', 'exit_code', 2],
      );
      assert.deepEqual(m.final().failure, { type: RUN_FAILURE.failed, message: 'job failed: exit_code' });
    });

    it('an agent error fails the job as agent_error, whatever the exit code', () => {
      const m = machine();
      assign(m, lease(1), T0);
      const { answer } = result(m, T0 + S, { leaseId: 'lease-1', exitCode: 0, error: 'could not start the shell' });
      assert.deepEqual(
        [answer.snapshot.state, answer.snapshot.failureReason, answer.snapshot.error],
        ['FAILED', 'agent_error', 'could not start the shell'],
      );
    });

    it('requeues a failed attempt after a doubling backoff while retry.maxAttempts allows, then fails', () => {
      const m = machine({ retry: { maxAttempts: 3, backoffSeconds: 10 } });
      let now = T0;
      for (const [attempt, backoff] of [
        [1, 10 * S],
        [2, 20 * S],
      ]) {
        assign(m, lease(attempt), now);
        now += 5 * S;
        const { answer } = result(m, now, { leaseId: `lease-${attempt}`, exitCode: 1 });
        const q = answer.snapshot;
        assert.deepEqual(
          [q.state, q.attempt, q.leaseId, q.agentId, q.startedAt, q.exitCode, q.runtimeMs],
          ['QUEUED', attempt + 1, null, null, null, null, null],
        );
        assert.equal(q.availableAt, iso(now + backoff));
        // The requeue is its caller's to write; the end of the backoff is the run's.
        const waiting = run(m, now);
        assert.deepEqual(waiting, { writes: [], moves: [], step: { kind: 'backoff', until: now + backoff } });
        now += backoff;
        const over = m.backoffOver();
        assert.deepEqual(
          [over.from.state, over.to.state, over.to.version],
          ['QUEUED', 'QUEUED', over.from.version + 1],
        );
        const after = run(m, now);
        assert.deepEqual(
          after.writes.map((w) => [w.snapshot.state, w.snapshot.attempt]),
          [['QUEUED', attempt + 1]],
        );
        assert.deepEqual(after.step, { kind: 'idle' });
      }
      assign(m, lease(3), now);
      const { answer } = result(m, now + S, { leaseId: 'lease-3', exitCode: 7 });
      assert.deepEqual(
        [answer.snapshot.state, answer.snapshot.attempt, answer.snapshot.failureReason, answer.snapshot.exitCode],
        ['FAILED', 3, 'exit_code', 7],
      );
      assert.deepEqual(reasons(m), [
        ['lease-1', 'result', false],
        ['lease-2', 'result', false],
        ['lease-3', 'result', false],
      ]);
    });

    it('a repeated result answers the same and applies nothing again', () => {
      const m = machine({ retry: { maxAttempts: 2, backoffSeconds: 10 } });
      assign(m, lease(1), T0);
      const first = result(m, T0 + S, { leaseId: 'lease-1', exitCode: 1 });
      const again = result(m, T0 + 2 * S, { leaseId: 'lease-1', exitCode: 1, agentId: 'agent_1' });
      assert.equal(again.answer, first.answer);
      assert.equal(again.move, null);
      assert.equal(m.snapshot.attempt, 2, 'not requeued twice');
      assert.equal(m.view().ends.length, 1);
    });

    it('a repeated result from another agent is refused', () => {
      const m = machine();
      assign(m, lease(1), T0);
      result(m, T0 + S, { leaseId: 'lease-1', agentId: 'agent_1' });
      assert.deepEqual(m.refuseResult({ leaseId: 'lease-1', agentId: 'agent_2', exitCode: 0, runtimeMs: 1 }), {
        type: REFUSAL.notAssigned,
        message: 'lease was not handed to this agent',
      });
    });

    it("refuses a lease that does not hold the job: a stale one, another agent's, or none while queued", () => {
      const m = machine();
      const refused = { type: REFUSAL.notAssigned, message: 'lease does not hold the job' };
      const report = (leaseId: string, agentId?: string) =>
        m.refuseResult({ leaseId, exitCode: 0, runtimeMs: 1, ...(agentId && { agentId }) });
      assert.deepEqual(report('lease-1'), refused, 'queued: nothing holds it');
      assign(m, lease(1), T0);
      run(m, T0 + 90 * S, lost);
      assign(m, lease(2), T0 + 100 * S);
      assert.deepEqual(report('lease-1'), refused, 'the lost attempt never overwrites the newer one');
      assert.deepEqual(report('lease-2', 'agent_2'), refused, 'handed to agent_1');
      assert.equal(report('lease-2', 'agent_1'), null);
      assert.equal(report('lease-2'), null, 'a report that does not name its agent');
    });

    it('refuses the result of a timed-out attempt', () => {
      const m = machine({ timeoutSeconds: 60 });
      assign(m, lease(1), T0);
      run(m, T0 + 60 * S);
      assert.equal(stateOf(m), 'TIMED_OUT');
      assert.equal(m.refuseResult({ leaseId: 'lease-1', exitCode: 0, runtimeMs: 1 })?.type, REFUSAL.notAssigned);
    });
  });

  describe('cancel', () => {
    it('QUEUED → CANCELLED at once', () => {
      const m = machine();
      const { answer, move } = cancel(m, T0 + S);
      assert.deepEqual(
        [answer.snapshot.state, answer.snapshot.finishedAt, answer.snapshot.runtimeMs],
        ['CANCELLED', iso(T0 + S), null],
      );
      assert.deepEqual(answer.ends, []);
      assert.deepEqual([move?.from.state, move?.to.state], ['QUEUED', 'CANCELLED']);
      assert.deepEqual(run(m, T0 + S), { writes: [], moves: [], step: { kind: 'done' } });
      assert.equal(m.final().failure, null, 'a cancelled run completes');
    });

    it('QUEUED during a backoff → CANCELLED at once', () => {
      const m = machine({ retry: { maxAttempts: 2, backoffSeconds: 10 } });
      assign(m, lease(1), T0);
      result(m, T0 + S, { leaseId: 'lease-1', exitCode: 1 });
      assert.equal(cancel(m, T0 + 2 * S).answer.snapshot.state, 'CANCELLED');
    });

    it('RUNNING → CANCELLING, answered with the kill; CANCELLED by the run when the grace runs out', () => {
      const m = machine();
      assign(m, lease(1), T0);
      const { answer, move } = cancel(m, T0 + 10 * S);
      assert.equal(answer.snapshot.state, 'CANCELLING');
      assert.deepEqual(answer.ends, [{ leaseId: 'lease-1', reason: 'cancelled', kill: true, at: iso(T0 + 10 * S) }]);
      assert.deepEqual([move?.from.state, move?.to.state], ['RUNNING', 'CANCELLING']);
      assert.deepEqual(run(m, T0 + 10 * S), { writes: [], moves: [], step: { kind: 'wait', until: T0 + 40 * S } });
      const { writes, moves, step } = run(m, T0 + 40 * S);
      assert.deepEqual(
        moves.map((mv) => mv.to.state),
        ['CANCELLED'],
      );
      assert.deepEqual(
        writes.map((w) => [w.snapshot.state, w.snapshot.runtimeMs, w.attemptEnds.length]),
        [['CANCELLED', 40 * S, 1]],
      );
      assert.deepEqual(step, { kind: 'done' });
    });

    it('CANCELLING → CANCELLED when the agent confirms with its result, whatever its exit code', () => {
      for (const exitCode of [143, 0]) {
        const m = machine();
        assign(m, lease(1), T0);
        cancel(m, T0 + S);
        const { answer } = result(m, T0 + 2 * S, { leaseId: 'lease-1', exitCode });
        assert.deepEqual([answer.snapshot.state, answer.snapshot.exitCode], ['CANCELLED', exitCode]);
        assert.deepEqual(
          answer.ends.map((e) => e.reason),
          ['cancelled', 'result'],
        );
        assert.deepEqual(run(m, T0 + 2 * S).step, { kind: 'done' }, 'written by the caller');
      }
    });

    it('CANCELLING stays as it is on a second cancel', () => {
      const m = machine();
      assign(m, lease(1), T0);
      const first = cancel(m, T0 + S);
      const again = cancel(m, T0 + 2 * S);
      assert.equal(again.move, null);
      assert.deepEqual(again.answer, first.answer);
      assert.deepEqual(
        run(m, T0 + 2 * S).step,
        { kind: 'wait', until: T0 + 31 * S },
        'the grace runs from the first cancel',
      );
    });

    it('is refused once the job is terminal, in each terminal state', () => {
      const ended: Record<string, JobMachine> = {};
      ended.SUCCEEDED = machine();
      assign(ended.SUCCEEDED, lease(1), T0);
      result(ended.SUCCEEDED, T0, { leaseId: 'lease-1' });
      ended.FAILED = machine();
      assign(ended.FAILED, lease(1), T0);
      result(ended.FAILED, T0, { leaseId: 'lease-1', exitCode: 1 });
      ended.TIMED_OUT = machine({ timeoutSeconds: 1 });
      assign(ended.TIMED_OUT, lease(1), T0);
      run(ended.TIMED_OUT, T0 + S);
      ended.CANCELLED = machine();
      cancel(ended.CANCELLED, T0);
      for (const [state, m] of Object.entries(ended)) {
        assert.equal(stateOf(m), state);
        assert.deepEqual(m.refuseCancel(), { type: REFUSAL.invalidState, message: `job is already ${state}` });
      }
    });
  });
});
