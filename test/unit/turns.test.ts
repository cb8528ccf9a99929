import assert from 'node:assert/strict';
import { createTurns } from '../../src/jobs/turns';
import { AppError } from '../../src/shared/errors';

/** A call that runs until `finish()`; `started` tells whether it got its turn. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const call = { started: false, finish, run: () => ((call.started = true), done) };
  return call;
}
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('turns: progress first, changes and log pushes in their turn', () => {
  it('lets changesMax changes in at once on an idle instance, and the next when one ends', async () => {
    const turns = createTurns({ changesMax: 4, quietMs: 50, retryAfterSeconds: 1 });
    const calls = Array.from({ length: 5 }, held);
    const runs = calls.map((c) => turns.change(c.run));
    await tick();
    assert.deepEqual(calls.map((c) => c.started), [true, true, true, true, false]);
    calls[0].finish();
    await tick();
    assert.equal(calls[4].started, true, 'the fifth goes in when a turn is free');
    calls.slice(1).forEach((c) => c.finish());
    await Promise.all(runs);
  });

  it('while progress is under way (and for quietMs after) lets a quarter of them in; progress never waits', async () => {
    const turns = createTurns({ changesMax: 8, quietMs: 100, retryAfterSeconds: 1 });
    const progress = Array.from({ length: 20 }, held);
    const progressRuns = progress.map((p) => turns.progress(p.run));
    await tick();
    assert.ok(progress.every((p) => p.started), 'progress is never held back');
    const changes = Array.from({ length: 5 }, held);
    const changeRuns = changes.map((c) => turns.change(c.run));
    await tick();
    assert.equal(changes.filter((c) => c.started).length, 2, 'a quarter of 8 while agents are being served');
    progress.forEach((p) => p.finish());
    await Promise.all(progressRuns);
    await tick();
    assert.equal(changes.filter((c) => c.started).length, 2, 'still a quarter just after progress stopped');
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(changes.filter((c) => c.started).length, 5, 'all of them once the instance has been quiet for quietMs');
    changes.forEach((c) => c.finish());
    await Promise.all(changeRuns);
  });

  it('answers 503 dependency.unavailable to a change that gets no turn within waitMs, and forgets it', async () => {
    const turns = createTurns({ changesMax: 1, waitMs: 50, retryAfterSeconds: 3 });
    const first = held();
    const running = turns.change(first.run);
    const late = held();
    await assert.rejects(turns.change(late.run), (err: AppError) => err.code === 'dependency.unavailable' && err.retryAfter === 3);
    first.finish();
    await running;
    assert.equal(late.started, false, 'the refused change never runs');
    const next = held();
    const after = turns.change(next.run);
    await tick();
    assert.equal(next.started, true, 'the refused one left no turn behind');
    next.finish();
    await after;
  });

  it('weighs log pushes by their lines: many small ones at once, a flood one batch at a time while agents progress', async () => {
    const turns = createTurns({ changesMax: 8, pushLinesMax: 4000, quietMs: 100, retryAfterSeconds: 1 });
    // Idle: four 1000-line batches fit, the fifth waits.
    const idle = Array.from({ length: 5 }, held);
    const idleRuns = idle.map((c) => turns.push(1000, c.run));
    await tick();
    assert.deepEqual(idle.map((c) => c.started), [true, true, true, true, false]);
    idle.forEach((c) => c.finish());
    await Promise.all(idleRuns);

    // Busy: a quarter, 1000 lines: one flood batch at a time, yet fifty 20-line pushes together.
    const progress = held();
    const progressRun = turns.progress(progress.run);
    const floods = Array.from({ length: 3 }, held);
    const floodRuns = floods.map((c) => turns.push(1000, c.run));
    await tick();
    assert.deepEqual(floods.map((c) => c.started), [true, false, false]);
    floods[0].finish();
    await tick();
    assert.deepEqual(floods.map((c) => c.started), [true, true, false], 'the next batch when the first is stored');
    floods.slice(1).forEach((c) => c.finish());
    await Promise.all(floodRuns);
    const small = Array.from({ length: 50 }, held);
    const smallRuns = small.map((c) => turns.push(20, c.run));
    await tick();
    assert.ok(small.every((c) => c.started), 'small pushes are not held back by the count of them');
    small.forEach((c) => c.finish());
    await Promise.all(smallRuns);

    // A push bigger than the lane still gets in once it is alone there; changes are a lane apart.
    const big = held();
    const bigRun = turns.push(5000, big.run);
    const change = held();
    const changeRun = turns.change(change.run);
    await tick();
    assert.deepEqual([big.started, change.started], [true, true]);
    big.finish();
    change.finish();
    progress.finish();
    await Promise.all([bigRun, changeRun, progressRun]);
  });
});
