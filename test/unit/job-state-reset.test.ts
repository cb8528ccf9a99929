import assert from 'node:assert/strict';
import { REFUSAL } from '../../workflows/job-model';
import { S, T0, assign, lease, machine, result, run } from '../support/job-machine';

// A run reset in Temporal (workflows/job.ts tells the machine it was reset, and when it goes
// live): it assigns nothing until it has written the row over, and then continues the row's
// numbers with the offsets the takeover answered (src/jobs/reset-takeover.ts).

describe('job state machine (no server): a reset run taking its job over', () => {
  it('refuses assignments while replaying and until the takeover is written, then assigns as the next attempt', () => {
    const m = machine({}, { version: 0 });
    m.wasReset('run-2');
    assert.equal(m.refuseAssign(lease(1), T0)?.type, REFUSAL.invalidState, 'a reapplied assignment is refused');
    assert.deepEqual(run(m, T0).step, { kind: 'idle' }, 'nothing to write while it replays');
    m.takeOver();
    const step = m.next(T0 + S);
    assert.equal(step.kind, 'project');
    if (step.kind !== 'project') return;
    assert.deepEqual(step.write.takeover, { runId: 'run-2' });
    assert.deepEqual(
      [step.write.snapshot.state, step.write.snapshot.version, step.write.snapshot.attempt],
      ['QUEUED', 0, 1],
    );
    assert.ok(m.refuseAssign(lease(1), T0 + S), 'still refused until the takeover is written');
    // The row was at version 4, attempt 1 used: the takeover wrote version 5, attempt 2.
    m.rebased({ version: 5, attempt: 1 }, 0);
    assert.deepEqual(run(m, T0 + S).writes, [], 'the takeover was the write');
    const { answer } = assign(m, lease(2), T0 + 2 * S);
    assert.deepEqual(
      [answer.snapshot.state, answer.snapshot.version, answer.snapshot.attempt, answer.snapshot.leaseId],
      ['RUNNING', 6, 2, 'lease-2'],
    );
    assert.equal(result(m, T0 + 3 * S, { leaseId: 'lease-2' }).answer.snapshot.version, 7);
  });

  it("a change made while the takeover was out is written after it, in the row's numbers", () => {
    const m = machine({}, { version: 0 });
    m.wasReset('run-2');
    m.takeOver();
    const step = m.next(T0);
    assert.equal(step.kind, 'project');
    // A reapplied `cancel` signal lands while the takeover's write is out.
    assert.equal(m.stop('cancelled in Temporal', T0 + S)?.to.state, 'CANCELLED');
    m.rebased({ version: 3, attempt: 0 }, 0);
    const { writes } = run(m, T0 + S);
    assert.deepEqual(
      writes.map((w) => [w.snapshot.state, w.snapshot.version, w.takeover]),
      [['CANCELLED', 4, undefined]],
    );
  });

  it('a run that was not reset never takes over', () => {
    const m = machine();
    m.takeOver();
    assert.deepEqual(run(m, T0).step, { kind: 'idle' });
    assert.equal(m.refuseAssign(lease(1), T0), null);
  });
});
