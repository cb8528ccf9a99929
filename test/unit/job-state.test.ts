import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { type Answered, type Move, type Step, JobMachine } from '../../workflows/job-machine';
import {
  type AssignInput,
  type AttemptCheck,
  type JobSpec,
  type JobState,
  type JobTimings,
  type ProjectJobInput,
  type ResultInput,
  REFUSAL,
  RUN_FAILURE,
} from '../../workflows/job-model';

// The job's transitions (CONTRACT §2) on the plain state machine the workflow drives: no Temporal,
// no timers, a clock that is just a number. The workflow's wiring of it is held by the replay test
// and test/unit/job-workflow.test.ts.

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const S = 1000;
const iso = (ms: number) => new Date(ms).toISOString();
/** The contract's durations: agent lost after 90 s, 30 s cancel grace, three losses at most. */
const TIMINGS: JobTimings = { agentLostAfterMs: 90 * S, cancelGraceMs: 30 * S, agentLossBackoffMs: 10 * S, agentLossMaxAttempts: 3 };

function machine(spec: Partial<JobSpec> = {}, more: { timings?: Partial<JobTimings>; attempt?: number; version?: number; manualRetry?: boolean } = {}) {
  return new JobMachine(
    {
      spec: {
        jobId: 'job_unit',
        workspaceId: 'ws_unit',
        type: 'COMMAND',
        command: 'true',
        labels: {},
        timeoutSeconds: 3600,
        retry: { maxAttempts: 1, backoffSeconds: 10 },
        createdAt: iso(T0),
        ...spec,
      },
      timings: { ...TIMINGS, ...more.timings },
      attempt: more.attempt ?? 1,
      version: more.version ?? 1,
      ...(more.manualRetry && { manualRetry: true }),
    },
    T0,
  );
}

const lease = (n: number, agentId = 'agent_1'): AssignInput => ({ leaseId: `lease-${n}`, agentId });

/** An Update as Temporal runs it: the validator, then (if it refused nothing) the handler. */
function assign(m: JobMachine, input: AssignInput, now: number): Answered {
  assert.equal(m.refuseAssign(input, now), null);
  return m.assign(input, now);
}
function result(m: JobMachine, now: number, r: Partial<ResultInput> & { leaseId: string }): Answered {
  const input = { exitCode: 0, runtimeMs: 1234, ...r };
  assert.equal(m.refuseResult(input), null);
  return m.result(input, now);
}
function cancel(m: JobMachine, now: number): Answered {
  assert.equal(m.refuseCancel(), null);
  return m.cancel(now);
}

/**
 * The run's own steps at `now`, as the workflow makes them: writes (each reported done), shown
 * moves, liveness checks answered with `check`, up to the step it waits on (or a check with no
 * answer given).
 */
function run(m: JobMachine, now: number, check?: AttemptCheck): { writes: ProjectJobInput[]; moves: Move[]; step: Step } {
  const writes: ProjectJobInput[] = [];
  const moves: Move[] = [];
  let step = m.next(now);
  for (;;) {
    if (step.kind === 'project') {
      writes.push(step.write);
      m.projected(step.write.snapshot.version);
    } else if (step.kind === 'moved') {
      moves.push(step.move);
    } else if (step.kind === 'check' && check) {
      step = m.checked(check, now) ?? m.next(now);
      check = undefined;
      continue;
    } else {
      return { writes, moves, step };
    }
    step = m.next(now);
  }
}

const alive: AttemptCheck = { msUntilLost: TIMINGS.agentLostAfterMs, msUntilDrainDeadline: null };
const lost: AttemptCheck = { msUntilLost: 0, msUntilDrainDeadline: null };
const reasons = (m: JobMachine) => m.view().ends.map((e) => [e.leaseId, e.reason, e.kill]);
const stateOf = (m: JobMachine): JobState => m.snapshot.state;

describe('job state machine (no server)', () => {
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
      assert.deepEqual(view.ends, [{ leaseId: 'lease-1', reason: 'cancelled', kill: true }]);
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
      assert.deepEqual(m.refuseAssign(lease(2), T0 + 10 * S), { type: REFUSAL.invalidState, message: 'job is waiting out a backoff' });
      assert.equal(m.refuseAssign(lease(2), T0 + 11 * S), null);
    });

    it('is refused for a withdrawn lease, even when the job is QUEUED', () => {
      const m = machine();
      assert.equal(m.withdrawLease('lease-1', T0), null, 'nothing to requeue');
      assert.deepEqual(m.refuseAssign(lease(1), T0), { type: REFUSAL.invalidState, message: 'the assignment was withdrawn' });
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
      assert.deepEqual(answer.ends, [{ leaseId: 'lease-1', reason: 'result', kill: false, result: { leaseId: 'lease-1', exitCode: 0, runtimeMs: 59_500 } }]);
      assert.deepEqual([move?.from.state, move?.to.state], ['RUNNING', 'SUCCEEDED']);
      assert.deepEqual(run(m, T0 + 60 * S), { writes: [], moves: [], step: { kind: 'done' } });
      assert.deepEqual(m.final(), { transition: { snapshot: m.snapshot, ends: answer.ends }, failure: null });
    });

    it('RUNNING → FAILED (exit_code) when no retry is left, and the run closes as failed', () => {
      const m = machine();
      assign(m, lease(1), T0);
      const { answer } = result(m, T0 + S, { leaseId: 'lease-1', exitCode: 2 });
      assert.deepEqual([answer.snapshot.state, answer.snapshot.failureReason, answer.snapshot.exitCode], ['FAILED', 'exit_code', 2]);
      assert.deepEqual(m.final().failure, { type: RUN_FAILURE.failed, message: 'job failed: exit_code' });
    });

    it('an agent error fails the job as agent_error, whatever the exit code', () => {
      const m = machine();
      assign(m, lease(1), T0);
      const { answer } = result(m, T0 + S, { leaseId: 'lease-1', exitCode: 0, error: 'could not start the shell' });
      assert.deepEqual([answer.snapshot.state, answer.snapshot.failureReason, answer.snapshot.error], ['FAILED', 'agent_error', 'could not start the shell']);
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
        assert.deepEqual([q.state, q.attempt, q.leaseId, q.agentId, q.startedAt, q.exitCode, q.runtimeMs], ['QUEUED', attempt + 1, null, null, null, null, null]);
        assert.equal(q.availableAt, iso(now + backoff));
        // The requeue is its caller's to write; the end of the backoff is the run's.
        const waiting = run(m, now);
        assert.deepEqual(waiting, { writes: [], moves: [], step: { kind: 'backoff', until: now + backoff } });
        now += backoff;
        const over = m.backoffOver();
        assert.deepEqual([over.from.state, over.to.state, over.to.version], ['QUEUED', 'QUEUED', over.from.version + 1]);
        const after = run(m, now);
        assert.deepEqual(after.writes.map((w) => [w.snapshot.state, w.snapshot.attempt]), [['QUEUED', attempt + 1]]);
        assert.deepEqual(after.step, { kind: 'idle' });
      }
      assign(m, lease(3), now);
      const { answer } = result(m, now + S, { leaseId: 'lease-3', exitCode: 7 });
      assert.deepEqual([answer.snapshot.state, answer.snapshot.attempt, answer.snapshot.failureReason, answer.snapshot.exitCode], ['FAILED', 3, 'exit_code', 7]);
      assert.deepEqual(reasons(m), [['lease-1', 'result', false], ['lease-2', 'result', false], ['lease-3', 'result', false]]);
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
      const report = (leaseId: string, agentId?: string) => m.refuseResult({ leaseId, exitCode: 0, runtimeMs: 1, ...(agentId && { agentId }) });
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
      assert.deepEqual([answer.snapshot.state, answer.snapshot.finishedAt, answer.snapshot.runtimeMs], ['CANCELLED', iso(T0 + S), null]);
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
      assert.deepEqual(answer.ends, [{ leaseId: 'lease-1', reason: 'cancelled', kill: true }]);
      assert.deepEqual([move?.from.state, move?.to.state], ['RUNNING', 'CANCELLING']);
      assert.deepEqual(run(m, T0 + 10 * S), { writes: [], moves: [], step: { kind: 'wait', until: T0 + 40 * S } });
      const { writes, moves, step } = run(m, T0 + 40 * S);
      assert.deepEqual(moves.map((mv) => mv.to.state), ['CANCELLED']);
      assert.deepEqual(writes.map((w) => [w.snapshot.state, w.snapshot.runtimeMs, w.attemptEnds.length]), [['CANCELLED', 40 * S, 1]]);
      assert.deepEqual(step, { kind: 'done' });
    });

    it('CANCELLING → CANCELLED when the agent confirms with its result, whatever its exit code', () => {
      for (const exitCode of [143, 0]) {
        const m = machine();
        assign(m, lease(1), T0);
        cancel(m, T0 + S);
        const { answer } = result(m, T0 + 2 * S, { leaseId: 'lease-1', exitCode });
        assert.deepEqual([answer.snapshot.state, answer.snapshot.exitCode], ['CANCELLED', exitCode]);
        assert.deepEqual(answer.ends.map((e) => e.reason), ['cancelled', 'result']);
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
      assert.deepEqual(run(m, T0 + 2 * S).step, { kind: 'wait', until: T0 + 31 * S }, 'the grace runs from the first cancel');
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

  describe('timeout', () => {
    it('RUNNING → TIMED_OUT when timeoutSeconds elapse since the start, with a kill, written by the run', () => {
      const m = machine({ timeoutSeconds: 60 });
      assign(m, lease(1), T0 + S);
      assert.deepEqual(run(m, T0 + S).step, { kind: 'wait', until: T0 + 61 * S }, 'the timeout comes before the liveness check');
      assert.equal(run(m, T0 + 60 * S).moves.length, 0, 'not a moment early');
      const { writes, moves, step } = run(m, T0 + 61 * S);
      assert.deepEqual(moves.map((mv) => mv.to.state), ['TIMED_OUT']);
      const done = writes[0].snapshot;
      assert.deepEqual([done.state, done.failureReason, done.finishedAt, done.runtimeMs], ['TIMED_OUT', 'timeout', iso(T0 + 61 * S), 60 * S]);
      assert.deepEqual(writes[0].attemptEnds, [{ leaseId: 'lease-1', reason: 'timeout', kill: true }]);
      assert.deepEqual(step, { kind: 'done' });
      assert.deepEqual(m.final().failure, { type: RUN_FAILURE.timedOut, message: 'job timed out: timeout' });
    });

    it('waits on the nearest of the liveness check, the timeout and a drain deadline', () => {
      const m = machine({ timeoutSeconds: 200 });
      assign(m, lease(1), T0);
      assert.deepEqual(run(m, T0).step, { kind: 'wait', until: T0 + 90 * S });
      assert.deepEqual(run(m, T0 + 90 * S).step, { kind: 'check', input: { leaseId: 'lease-1', lostAfterMs: 90 * S } });
      assert.deepEqual(m.checked(alive, T0 + 90 * S), { kind: 'wait', until: T0 + 180 * S });
      assert.deepEqual(run(m, T0 + 180 * S, alive).step, { kind: 'wait', until: T0 + 200 * S });
      m.recheck();
      assert.deepEqual(run(m, T0 + 181 * S, { msUntilLost: 80 * S, msUntilDrainDeadline: 5 * S }).step, { kind: 'wait', until: T0 + 186 * S });
    });
  });

  describe('agent loss', () => {
    it('requeues after each loss with a doubling backoff, then fails with agent_lost, whatever the retry policy', () => {
      const m = machine({ retry: { maxAttempts: 10, backoffSeconds: 10 } });
      let now = T0;
      for (const [attempt, backoff] of [
        [1, 10 * S],
        [2, 20 * S],
      ]) {
        assign(m, lease(attempt), now);
        now += 90 * S;
        const { writes, step } = run(m, now, lost);
        const q = writes[0].snapshot;
        assert.deepEqual([q.state, q.attempt, q.availableAt, q.agentId], ['QUEUED', attempt + 1, iso(now + backoff), null]);
        assert.deepEqual(writes[0].attemptEnds.at(-1), { leaseId: `lease-${attempt}`, reason: 'agent_lost', kill: true });
        assert.deepEqual(step, { kind: 'backoff', until: now + backoff });
        now += backoff;
        m.backoffOver();
        run(m, now);
      }
      assign(m, lease(3), now);
      const { writes, step } = run(m, now + 90 * S, lost);
      assert.deepEqual([writes[0].snapshot.state, writes[0].snapshot.failureReason, writes[0].snapshot.attempt], ['FAILED', 'agent_lost', 3]);
      assert.deepEqual(step, { kind: 'done' });
      assert.deepEqual(reasons(m).map(([, reason]) => reason), ['agent_lost', 'agent_lost', 'agent_lost']);
      assert.deepEqual(m.final().failure, { type: RUN_FAILURE.failed, message: 'job failed: agent_lost' });
    });

    it('counts losses and exit failures apart', () => {
      const m = machine({ retry: { maxAttempts: 2, backoffSeconds: 1 } }, { timings: { agentLossMaxAttempts: 2 } });
      assign(m, lease(1), T0);
      run(m, T0 + 90 * S, lost);
      assign(m, lease(2), T0 + 200 * S);
      assert.equal(result(m, T0 + 201 * S, { leaseId: 'lease-2', exitCode: 1 }).answer.snapshot.state, 'QUEUED', 'the loss did not use the exit retry');
      assign(m, lease(3), T0 + 300 * S);
      assert.equal(run(m, T0 + 390 * S, lost).writes[0].snapshot.state, 'FAILED', 'the second loss fails it');
    });

    it('keeps a job whose agent stays alive, checking again a loss period later', () => {
      const m = machine();
      assign(m, lease(1), T0);
      for (let i = 1; i <= 5; i++) {
        const { writes, step } = run(m, T0 + i * 90 * S, alive);
        assert.deepEqual(writes, []);
        assert.deepEqual(step, { kind: 'wait', until: T0 + (i + 1) * 90 * S });
      }
      assert.equal(stateOf(m), 'RUNNING');
    });

    it('a recheck asks after the agent at once, not at the next liveness check', () => {
      const m = machine();
      assign(m, lease(1), T0);
      run(m, T0);
      m.recheck();
      assert.ok(m.changedSince(m.version), 'wakes the wait');
      assert.deepEqual(m.next(T0 + S), { kind: 'check', input: { leaseId: 'lease-1', lostAfterMs: 90 * S } });
      assert.equal(m.changedSince(m.version), false, 'asked once');
    });

    it('ignores the answer of a check made before the job moved', () => {
      const m = machine();
      assign(m, lease(1), T0);
      assert.equal(run(m, T0 + 90 * S).step.kind, 'check');
      result(m, T0 + 91 * S, { leaseId: 'lease-1' });
      assert.equal(m.checked(lost, T0 + 91 * S), null, 'stale: ask again');
      assert.deepEqual(m.next(T0 + 91 * S), { kind: 'done' });
      assert.equal(stateOf(m), 'SUCCEEDED');
      assert.deepEqual(reasons(m), [['lease-1', 'result', false]]);
    });
  });

  describe('deregistration', () => {
    it('requeues at once, with a kill, not counted as an agent loss', () => {
      const m = machine({}, { timings: { agentLossMaxAttempts: 2 } });
      assign(m, lease(1), T0);
      m.recheck();
      const { writes, step } = run(m, T0 + 5 * S, { ...lost, deregistered: true });
      const q = writes[0].snapshot;
      assert.deepEqual([q.state, q.attempt, q.availableAt], ['QUEUED', 2, iso(T0 + 5 * S)], 'claimable at once');
      assert.deepEqual(writes[0].attemptEnds, [{ leaseId: 'lease-1', reason: 'deregistered', kill: true }]);
      assert.deepEqual(step, { kind: 'idle' });
      assign(m, lease(2), T0 + 6 * S);
      assert.equal(run(m, T0 + 96 * S, lost).writes[0].snapshot.state, 'QUEUED', 'the first real loss requeues');
    });
  });

  describe('drain deadline', () => {
    it('requeues the job at once when its draining agent passes the deadline, not counted as a loss', () => {
      const m = machine({}, { timings: { agentLossMaxAttempts: 2 } });
      assign(m, lease(1), T0);
      m.recheck();
      assert.deepEqual(run(m, T0 + S, { ...alive, msUntilDrainDeadline: 20 * S }).step, { kind: 'wait', until: T0 + 21 * S });
      const { writes, step } = run(m, T0 + 21 * S);
      assert.deepEqual([writes[0].snapshot.state, writes[0].snapshot.attempt, writes[0].snapshot.availableAt], ['QUEUED', 2, iso(T0 + 21 * S)]);
      assert.deepEqual(writes[0].attemptEnds, [{ leaseId: 'lease-1', reason: 'drain_deadline', kill: true }]);
      assert.deepEqual(step, { kind: 'idle' });
      assign(m, lease(2), T0 + 22 * S);
      assert.deepEqual(run(m, T0 + 22 * S).step, { kind: 'wait', until: T0 + 112 * S }, 'the next attempt forgets the old deadline');
      assert.equal(run(m, T0 + 112 * S, lost).writes[0].snapshot.state, 'QUEUED', 'the first real loss requeues');
    });

    it('a check that finds no deadline any more drops it', () => {
      const m = machine();
      assign(m, lease(1), T0);
      m.recheck();
      run(m, T0 + S, { ...alive, msUntilDrainDeadline: 20 * S });
      m.recheck();
      assert.deepEqual(run(m, T0 + 2 * S, alive).step, { kind: 'wait', until: T0 + 92 * S });
    });
  });

  describe('withdrawn lease', () => {
    it('RUNNING → QUEUED at once, not a loss and no kill, written by the run; the lease is refused later', () => {
      const m = machine({}, { timings: { agentLossMaxAttempts: 1 } });
      assign(m, lease(1), T0);
      const move = m.withdrawLease('lease-1', T0 + S);
      assert.deepEqual([move?.from.state, move?.to.state, move?.to.attempt, move?.to.availableAt], ['RUNNING', 'QUEUED', 2, iso(T0 + S)]);
      const { writes, step } = run(m, T0 + S);
      assert.deepEqual(writes[0].attemptEnds, [{ leaseId: 'lease-1', reason: 'undelivered', kill: false }]);
      assert.deepEqual(step, { kind: 'idle' });
      assert.equal(m.refuseAssign(lease(1), T0 + S)?.message, 'the assignment was withdrawn');
      assert.equal(m.refuseResult({ leaseId: 'lease-1', exitCode: 0, runtimeMs: 1 })?.type, REFUSAL.notAssigned);
      assign(m, lease(2), T0 + 2 * S);
      assert.equal(result(m, T0 + 3 * S, { leaseId: 'lease-2' }).answer.snapshot.state, 'SUCCEEDED');
    });

    it('CANCELLING → CANCELLED: no agent has it to confirm', () => {
      const m = machine();
      assign(m, lease(1), T0);
      cancel(m, T0 + S);
      assert.equal(m.withdrawLease('lease-1', T0 + 2 * S)?.to.state, 'CANCELLED');
      assert.equal(run(m, T0 + 2 * S).writes[0].snapshot.state, 'CANCELLED');
    });

    it('changes nothing for a lease that no longer holds the job or whose result was applied', () => {
      const m = machine({ retry: { maxAttempts: 2, backoffSeconds: 1 } });
      assign(m, lease(1), T0);
      result(m, T0 + S, { leaseId: 'lease-1', exitCode: 1 });
      const version = m.version;
      assert.equal(m.withdrawLease('lease-1', T0 + 2 * S), null);
      assign(m, lease(2), T0 + 2 * S);
      result(m, T0 + 3 * S, { leaseId: 'lease-2' });
      assert.equal(m.withdrawLease('lease-2', T0 + 4 * S), null);
      assert.equal(stateOf(m), 'SUCCEEDED');
      assert.equal(m.version, version + 2);
    });
  });

  describe('what the run writes', () => {
    it("writes its own moves with every attempt end so far, and again if the job moved during the write", () => {
      const m = machine({ retry: { maxAttempts: 2, backoffSeconds: 1 } });
      assign(m, lease(1), T0);
      run(m, T0 + 90 * S, lost);
      assign(m, lease(2), T0 + 200 * S);
      const step = run(m, T0 + 290 * S).step;
      assert.equal(step.kind, 'check');
      assert.equal(m.checked(lost, T0 + 290 * S)?.kind, 'moved');
      const first = m.next(T0 + 290 * S);
      assert.ok(first.kind === 'project');
      assert.deepEqual(first.write.attemptEnds.map((e) => e.reason), ['agent_lost', 'agent_lost']);
      // A cancel lands while that write is out: its caller writes CANCELLED, and the run's write
      // of the older version leaves nothing behind.
      cancel(m, T0 + 291 * S);
      m.projected(first.write.snapshot.version);
      assert.deepEqual(m.next(T0 + 291 * S), { kind: 'done' });
      // A move of the run's own while a write is out is written next.
      const n = machine();
      assign(n, lease(1), T0);
      n.withdrawLease('lease-1', T0 + S);
      const out = n.next(T0 + S);
      assert.ok(out.kind === 'project');
      assign(n, lease(2), T0 + S);
      n.withdrawLease('lease-2', T0 + S);
      n.projected(out.write.snapshot.version);
      const again = n.next(T0 + S);
      assert.ok(again.kind === 'project');
      assert.deepEqual([again.write.snapshot.state, again.write.snapshot.attempt], ['QUEUED', 3]);
      assert.deepEqual(again.write.attemptEnds.map((e) => [e.leaseId, e.reason]), [['lease-1', 'undelivered'], ['lease-2', 'undelivered']]);
    });

    it('a quiet end of a backoff is written again so waiting agents are woken', () => {
      const m = machine({ retry: { maxAttempts: 2, backoffSeconds: 5 } });
      assign(m, lease(1), T0);
      result(m, T0 + S, { leaseId: 'lease-1', exitCode: 1 });
      m.recheck();
      assert.deepEqual(m.next(T0 + S), { kind: 'backoff', until: T0 + 6 * S }, 'a recheck while queued asks nothing');
      const move = m.backoffOver();
      const { writes, step } = run(m, T0 + 6 * S);
      assert.deepEqual(writes.map((w) => [w.snapshot.state, w.snapshot.version]), [['QUEUED', move.to.version]]);
      assert.deepEqual(step, { kind: 'idle' });
    });
  });

  it('loads no Temporal: the machine and the model it imports are plain modules', () => {
    const dir = path.resolve(__dirname, '../../workflows');
    const importsOf = (file: string) => [...new Set([...fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]))];
    assert.deepEqual(importsOf('job-machine.ts'), ['./job-model']);
    assert.deepEqual(importsOf('job-model.ts'), []);
  });
});
