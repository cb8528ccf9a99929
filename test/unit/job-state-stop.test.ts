import assert from 'node:assert/strict';
import { S, T0, assign, cancel, iso, lease, machine, result, run } from '../support/job-machine';

// A cancel the service makes on its own account (src/billing/meter.ts signals it for a lowered
// hard cap): the job's failureReason says why, and nobody waits on an answer.

describe("job state machine (no server): the service's own stop (a lowered hard cap)", () => {
  it('QUEUED → CANCELLED with the reason; the run writes it, nobody waits on an answer', () => {
    const m = machine();
    const move = m.stop('billing.hard_cap', T0 + S);
    assert.deepEqual(
      [move?.to.state, move?.to.failureReason, move?.to.finishedAt],
      ['CANCELLED', 'billing.hard_cap', iso(T0 + S)],
    );
    const { writes, step } = run(m, T0 + S);
    assert.deepEqual(
      writes.map((w) => [w.snapshot.state, w.snapshot.failureReason]),
      [['CANCELLED', 'billing.hard_cap']],
    );
    assert.deepEqual(step, { kind: 'done' });
  });

  it('RUNNING → CANCELLING with the reason and the kill; CANCELLED with it when the grace runs out', () => {
    const m = machine();
    assign(m, lease(1), T0);
    assert.equal(m.stop('billing.hard_cap', T0 + S)?.to.state, 'CANCELLING');
    const first = run(m, T0 + S);
    assert.deepEqual(
      first.writes.map((w) => [w.snapshot.state, w.snapshot.failureReason, w.attemptEnds.map((e) => e.reason)]),
      [['CANCELLING', 'billing.hard_cap', ['cancelled']]],
    );
    const { writes } = run(m, T0 + 31 * S);
    assert.deepEqual(
      writes.map((w) => [w.snapshot.state, w.snapshot.failureReason]),
      [['CANCELLED', 'billing.hard_cap']],
    );
  });

  it('changes nothing once the job is cancelling or has ended', () => {
    const m = machine();
    assign(m, lease(1), T0);
    cancel(m, T0 + S);
    assert.equal(m.stop('billing.hard_cap', T0 + 2 * S), null);
    assert.equal(m.snapshot.failureReason, null, 'a cancel asked for first keeps its own account');
    const ended = machine();
    assign(ended, lease(1), T0);
    result(ended, T0, { leaseId: 'lease-1' });
    assert.equal(ended.stop('billing.hard_cap', T0 + S), null);
  });
});
