import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REFUSAL, RUN_FAILURE } from '../../workflows/job-model';
import {
  S,
  T0,
  alive,
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

// The moves a job's run makes on its own (CONTRACT §2): timeouts, agent loss, removal, drain
// deadlines, withdrawn leases, and what the run writes itself, on the plain state machine.

describe('job state machine (no server): what the run does on its own', () => {
  describe('timeout', () => {
    it('RUNNING → TIMED_OUT when timeoutSeconds elapse since the start, with a kill, written by the run', () => {
      const m = machine({ timeoutSeconds: 60 });
      assign(m, lease(1), T0 + S);
      assert.deepEqual(
        run(m, T0 + S).step,
        { kind: 'wait', until: T0 + 61 * S },
        'the timeout comes before the liveness check',
      );
      assert.equal(run(m, T0 + 60 * S).moves.length, 0, 'not a moment early');
      const { writes, moves, step } = run(m, T0 + 61 * S);
      assert.deepEqual(
        moves.map((mv) => mv.to.state),
        ['TIMED_OUT'],
      );
      const done = writes[0].snapshot;
      assert.deepEqual(
        [done.state, done.failureReason, done.finishedAt, done.runtimeMs],
        ['TIMED_OUT', 'timeout', iso(T0 + 61 * S), 60 * S],
      );
      assert.deepEqual(
        writes[0].attemptEnds,
        [{ leaseId: 'lease-1', reason: 'timeout', kill: true, at: iso(T0 + 61 * S) }],
        'ended when the run decided it',
      );
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
      assert.deepEqual(run(m, T0 + 181 * S, { msUntilLost: 80 * S, msUntilDrainDeadline: 5 * S }).step, {
        kind: 'wait',
        until: T0 + 186 * S,
      });
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
        assert.deepEqual(
          [q.state, q.attempt, q.availableAt, q.agentId],
          ['QUEUED', attempt + 1, iso(now + backoff), null],
        );
        assert.deepEqual(writes[0].attemptEnds.at(-1), {
          leaseId: `lease-${attempt}`,
          reason: 'agent_lost',
          kill: true,
          at: iso(now),
        });
        assert.deepEqual(step, { kind: 'backoff', until: now + backoff });
        now += backoff;
        m.backoffOver();
        run(m, now);
      }
      assign(m, lease(3), now);
      const { writes, step } = run(m, now + 90 * S, lost);
      assert.deepEqual(
        [writes[0].snapshot.state, writes[0].snapshot.failureReason, writes[0].snapshot.attempt],
        ['FAILED', 'agent_lost', 3],
      );
      assert.deepEqual(step, { kind: 'done' });
      assert.deepEqual(
        reasons(m).map(([, reason]) => reason),
        ['agent_lost', 'agent_lost', 'agent_lost'],
      );
      assert.deepEqual(m.final().failure, { type: RUN_FAILURE.failed, message: 'job failed: agent_lost' });
    });

    it('counts losses and exit failures apart', () => {
      const m = machine({ retry: { maxAttempts: 2, backoffSeconds: 1 } }, { timings: { agentLossMaxAttempts: 2 } });
      assign(m, lease(1), T0);
      run(m, T0 + 90 * S, lost);
      assign(m, lease(2), T0 + 200 * S);
      assert.equal(
        result(m, T0 + 201 * S, { leaseId: 'lease-2', exitCode: 1 }).answer.snapshot.state,
        'QUEUED',
        'the loss did not use the exit retry',
      );
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
      assert.deepEqual(writes[0].attemptEnds, [
        { leaseId: 'lease-1', reason: 'deregistered', kill: true, at: iso(T0 + 5 * S) },
      ]);
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
      assert.deepEqual(run(m, T0 + S, { ...alive, msUntilDrainDeadline: 20 * S }).step, {
        kind: 'wait',
        until: T0 + 21 * S,
      });
      const { writes, step } = run(m, T0 + 21 * S);
      assert.deepEqual(
        [writes[0].snapshot.state, writes[0].snapshot.attempt, writes[0].snapshot.availableAt],
        ['QUEUED', 2, iso(T0 + 21 * S)],
      );
      assert.deepEqual(writes[0].attemptEnds, [
        { leaseId: 'lease-1', reason: 'drain_deadline', kill: true, at: iso(T0 + 21 * S) },
      ]);
      assert.deepEqual(step, { kind: 'idle' });
      assign(m, lease(2), T0 + 22 * S);
      assert.deepEqual(
        run(m, T0 + 22 * S).step,
        { kind: 'wait', until: T0 + 112 * S },
        'the next attempt forgets the old deadline',
      );
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
      assert.deepEqual(
        [move?.from.state, move?.to.state, move?.to.attempt, move?.to.availableAt],
        ['RUNNING', 'QUEUED', 2, iso(T0 + S)],
      );
      const { writes, step } = run(m, T0 + S);
      assert.deepEqual(writes[0].attemptEnds, [
        { leaseId: 'lease-1', reason: 'undelivered', kill: false, at: iso(T0 + S) },
      ]);
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
    it('writes its own moves with every attempt end so far, and again if the job moved during the write', () => {
      const m = machine({ retry: { maxAttempts: 2, backoffSeconds: 1 } });
      assign(m, lease(1), T0);
      run(m, T0 + 90 * S, lost);
      assign(m, lease(2), T0 + 200 * S);
      const step = run(m, T0 + 290 * S).step;
      assert.equal(step.kind, 'check');
      assert.equal(m.checked(lost, T0 + 290 * S)?.kind, 'moved');
      const first = m.next(T0 + 290 * S);
      assert.ok(first.kind === 'project');
      assert.deepEqual(
        first.write.attemptEnds.map((e) => e.reason),
        ['agent_lost', 'agent_lost'],
      );
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
      assert.deepEqual(
        again.write.attemptEnds.map((e) => [e.leaseId, e.reason]),
        [
          ['lease-1', 'undelivered'],
          ['lease-2', 'undelivered'],
        ],
      );
    });

    it('a quiet end of a backoff is written again so waiting agents are woken', () => {
      const m = machine({ retry: { maxAttempts: 2, backoffSeconds: 5 } });
      assign(m, lease(1), T0);
      result(m, T0 + S, { leaseId: 'lease-1', exitCode: 1 });
      m.recheck();
      assert.deepEqual(m.next(T0 + S), { kind: 'backoff', until: T0 + 6 * S }, 'a recheck while queued asks nothing');
      const move = m.backoffOver();
      const { writes, step } = run(m, T0 + 6 * S);
      assert.deepEqual(
        writes.map((w) => [w.snapshot.state, w.snapshot.version]),
        [['QUEUED', move.to.version]],
      );
      assert.deepEqual(step, { kind: 'idle' });
    });
  });

  it('loads no Temporal: the machine and the model it imports are plain modules', () => {
    const dir = path.resolve(__dirname, '../../workflows');
    const importsOf = (file: string) => [
      ...new Set([...fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1])),
    ];
    assert.deepEqual(importsOf('job-machine.ts'), ['./job-model', './job-steps']);
    assert.deepEqual(importsOf('job-steps.ts'), ['./job-model']);
    assert.deepEqual(importsOf('job-model.ts'), []);
  });
});
