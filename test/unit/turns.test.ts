import assert from 'node:assert/strict';
import { createTurns } from '../../src/jobs/turns';
import { AppError } from '../../src/shared/errors';

/** A call that runs until `finish()`; `started` tells whether it got its turn, `startedAt` when. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const call = {
    started: false,
    startedAt: 0,
    finish,
    run: () => ((call.started = true), (call.startedAt = Date.now()), done),
  };
  return call;
}
const tick = () => new Promise((r) => setTimeout(r, 5));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Until `cond` holds (a test's timeout bounds it): what comes after a rest, however late the timers run. */
async function waitUntil(cond: () => boolean): Promise<void> {
  while (!cond()) await tick();
}

/**
 * A push lane of 400 lines (100 while busy) whose agents progress until `progress.finish()`, and
 * `pushed`: one batch of a job through it, held `ms`; it returns when the batch was finishing, a
 * lower bound of when the rest it leaves starts.
 */
function busyPushLane(o: { quietMs: number; floodRestFactor: number }) {
  const turns = createTurns({ changesMax: 8, pushLinesMax: 400, retryAfterSeconds: 1, ...o });
  const progress = held();
  const progressRun = turns.progress('ws_a', progress.run);
  const pushed = async (job: string, lines: number, ms = 0) => {
    const c = held();
    const run = turns.push(job, lines, c.run);
    await waitUntil(() => c.started);
    await sleep(ms);
    const finished = Date.now();
    c.finish();
    await run;
    return finished;
  };
  return { turns, progress, progressRun, pushed };
}

describe('turns: progress first, changes and log pushes in their turn', () => {
  it('lets changesMax changes in at once on an idle instance, and the next when one ends', async () => {
    const turns = createTurns({ changesMax: 4, quietMs: 50, retryAfterSeconds: 1 });
    const calls = Array.from({ length: 5 }, held);
    const runs = calls.map((c) => turns.change('ws_a', c.run));
    await tick();
    assert.deepEqual(
      calls.map((c) => c.started),
      [true, true, true, true, false],
    );
    calls[0].finish();
    await tick();
    assert.equal(calls[4].started, true, 'the fifth goes in when a turn is free');
    calls.slice(1).forEach((c) => c.finish());
    await Promise.all(runs);
  });

  it('while progress is under way (and for quietMs after) lets a quarter of them in; progress never waits', async () => {
    const turns = createTurns({ changesMax: 8, quietMs: 100, retryAfterSeconds: 1 });
    const progress = Array.from({ length: 20 }, held);
    const progressRuns = progress.map((p) => turns.progress('ws_a', p.run));
    await tick();
    assert.ok(
      progress.every((p) => p.started),
      'progress is never held back',
    );
    const changes = Array.from({ length: 5 }, held);
    const changeRuns = changes.map((c) => turns.change('ws_a', c.run));
    await tick();
    assert.equal(changes.filter((c) => c.started).length, 2, 'a quarter of 8 while agents are being served');
    progress.forEach((p) => p.finish());
    await Promise.all(progressRuns);
    await tick();
    assert.equal(changes.filter((c) => c.started).length, 2, 'still a quarter just after progress stopped');
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(
      changes.filter((c) => c.started).length,
      5,
      'all of them once the instance has been quiet for quietMs',
    );
    changes.forEach((c) => c.finish());
    await Promise.all(changeRuns);
  });

  it('answers 503 dependency.unavailable to a change that gets no turn within waitMs, and forgets it', async () => {
    const turns = createTurns({ changesMax: 1, waitMs: 50, retryAfterSeconds: 3 });
    const first = held();
    const running = turns.change('ws_a', first.run);
    const late = held();
    await assert.rejects(
      turns.change('ws_a', late.run),
      (err: AppError) => err.code === 'dependency.unavailable' && err.retryAfter === 3,
    );
    first.finish();
    await running;
    assert.equal(late.started, false, 'the refused change never runs');
    const next = held();
    const after = turns.change('ws_a', next.run);
    await tick();
    assert.equal(next.started, true, 'the refused one left no turn behind');
    next.finish();
    await after;
  });

  it('weighs log pushes by their lines: many small ones at once; while agents progress, a job pushing past the lane in a second is a flood, one batch at a time with long rests', async () => {
    // A flood is a job past the busy lane's lines within quietMs: long enough here that its window
    // outlasts the rest below by hundreds of ms, however late this machine runs the timers.
    const turns = createTurns({ changesMax: 8, pushLinesMax: 4000, quietMs: 3000, retryAfterSeconds: 1 });
    // Idle: four 1000-line batches fit, the fifth waits.
    const idle = Array.from({ length: 5 }, held);
    const idleRuns = idle.map((c, i) => turns.push(`job_idle${i}`, 1000, c.run));
    await tick();
    assert.deepEqual(
      idle.map((c) => c.started),
      [true, true, true, true, false],
    );
    idle.forEach((c) => c.finish());
    await Promise.all(idleRuns);

    // Busy: a quarter, 1000 lines. The flood's first batch is a job's first 1000 lines (not yet a
    // flood); its next goes in once there is room, as heavy work; the one after rests nine times
    // as long as it took.
    const progress = held();
    const progressRun = turns.progress('ws_a', progress.run);
    const floods = Array.from({ length: 3 }, held);
    const floodRuns = floods.map((c) => turns.push('job_flood', 1000, c.run));
    await tick();
    assert.deepEqual(
      floods.map((c) => c.started),
      [true, false, false],
      'one batch of 1000 lines fills the busy lane',
    );
    floods[0].finish();
    await waitUntil(() => floods[1].started);
    await sleep(150);
    floods[1].finish();
    const rested = Date.now();
    // Timers and ticks run late on a loaded machine, so nothing here asserts what has happened by
    // a time; the rest is a lower bound no load can shorten, and its length is measured.
    const small = Array.from({ length: 50 }, held);
    const smallRuns = small.map((c, i) => turns.push(`job_small${i}`, 20, c.run));
    await tick();
    assert.ok(
      small.every((c) => c.started) && !floods[2].started,
      `small pushes of other jobs pass the resting flood and are not held back by the count of them: ${small.filter((c) => c.started).length} of 50 started, the flood's next batch ${floods[2].started ? 'started' : 'resting'}`,
    );
    small.forEach((c) => c.finish());
    await Promise.all(smallRuns);
    await waitUntil(() => floods[2].started);
    const rest = floods[2].startedAt - rested;
    assert.ok(rest >= 9 * 150 - 5, `the flood rested ${rest} ms, nine times the 150 its last batch took`);
    floods[2].finish();
    await Promise.all(floodRuns);

    // A push bigger than the lane still gets in once it is alone there; changes are a lane apart.
    const big = held();
    const bigRun = turns.push('job_big', 5000, big.run);
    const change = held();
    const changeRun = turns.change('ws_a', change.run);
    await waitUntil(() => big.started && change.started);
    big.finish();
    change.finish();
    progress.finish();
    await Promise.all([bigRun, changeRun, progressRun]);
  });

  it('keeps a job that flooded its log heavy while it goes on pushing, through its rests, however small its batches', async () => {
    const { turns, progress, progressRun, pushed } = busyPushLane({ quietMs: 1000, floodRestFactor: 12 });
    // Past the busy lane's 100 lines within one window: a flood, whose second batch rests the lane 1200 ms.
    await pushed('job_flood', 100);
    const rested = await pushed('job_flood', 100, 100);
    // After the rest, in a window of its own, a batch of 10 lines is still the flood's: heavy, so
    // its next one waits out the rest while another job's batch of the same size passes.
    await waitUntil(() => Date.now() >= rested + 1220);
    await pushed('job_flood', 10, 100);
    const next = held();
    const nextRun = turns.push('job_flood', 10, next.run);
    const other = held();
    const otherRun = turns.push('job_quiet', 10, other.run);
    await tick();
    assert.equal(other.started, true, "another job's small batch passes");
    assert.equal(next.started, false, "the flood's small batch rests");
    await waitUntil(() => next.started);
    next.finish();
    other.finish();
    await Promise.all([nextRun, otherRun]);
    // Quiet for longer than quietMs after its last rest, the job is no flood any more: its batch
    // is light work, which leaves no rest, so the one after it goes straight in too.
    await sleep(2500);
    await pushed('job_flood', 10, 100);
    const after = held();
    const afterRun = turns.push('job_flood', 10, after.run);
    await tick();
    assert.equal(after.started, true, 'a job quiet for quietMs is no flood: no rest after its batch');
    after.finish();
    progress.finish();
    await Promise.all([afterRun, progressRun]);
  });
  it("keeps a flood's batch that waits out another flood's rest a flood: it never slips in as light work", async () => {
    const { turns, progress, progressRun, pushed } = busyPushLane({ quietMs: 200, floodRestFactor: 8 });
    // Two floods: past the busy lane's 100 lines each.
    await pushed('job_a', 100);
    await pushed('job_a', 100);
    await pushed('job_b', 100);
    const b = held();
    const bRun = turns.push('job_b', 100, b.run);
    await waitUntil(() => b.started);
    // A's next batch, small, waits while B's runs and then through the rest B's leaves (1200 ms).
    const a = held();
    const aRun = turns.push('job_a', 10, a.run);
    await sleep(150);
    // Before the turn ends: the rest it leaves runs from later than this.
    const rested = Date.now();
    b.finish();
    await bRun;
    // Longer than quietMs into the rest, another job's batch comes and goes: A's is still held.
    await sleep(300);
    await pushed('job_c', 10);
    await tick();
    assert.equal(a.started, false, "the waiting flood's batch does not pass the rest as light work");
    await waitUntil(() => a.started);
    const rest = a.startedAt - rested;
    assert.ok(rest >= 8 * 150 - 5, `it waited ${rest} ms of the rest B's 150 ms batch left`);
    a.finish();
    progress.finish();
    await Promise.all([aRun, progressRun]);
  });
  it("while other workspaces' jobs progress, lets one change of a workspace whose jobs do not in at a time, then rests as long as it took; the progressing workspace's changes pass", async () => {
    const turns = createTurns({ changesMax: 8, quietMs: 100, retryAfterSeconds: 1 });
    const progress = held();
    const progressRun = turns.progress('ws_fleet', progress.run);
    const bulk = Array.from({ length: 3 }, held);
    const bulkRuns = bulk.map((c) => turns.change('ws_bulk', c.run));
    const own = Array.from({ length: 2 }, held);
    const ownRuns = own.map((c) => turns.change('ws_fleet', c.run));
    await tick();
    assert.deepEqual(
      bulk.map((c) => c.started),
      [true, false, false],
      "one of the other workspace's changes at a time",
    );
    assert.deepEqual(
      own.map((c) => c.started),
      [true, false],
      "the fleet's own change passes those waiting, within the quarter (2 of 8)",
    );
    await sleep(200);
    bulk[0].finish();
    own[0].finish();
    const rested = Date.now();
    await tick();
    assert.equal(own[1].started, true, "the fleet's next change does not wait for the rest");
    // The rest is measured, not sampled at a time: late timers cannot make it look shorter or longer.
    await waitUntil(() => bulk[1].started);
    const rest = bulk[1].startedAt - rested;
    assert.ok(rest >= 195, `the other workspace rested ${rest} ms of the 200 its change took`);
    assert.equal(bulk[2].started, false, 'then its next change goes in, alone');
    own[1].finish();
    bulk[1].finish();
    progress.finish();
    await progressRun;
    await waitUntil(() => bulk[2].started);
    bulk[2].finish();
    await Promise.all([...bulkRuns, ...ownRuns]);
  });
});
