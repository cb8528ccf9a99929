import assert from 'node:assert/strict';
import { PollWaiters } from '../../src/agents/poll-waiters';
import { NOTIFY } from '../../src/db/channels';
import type { Notifier } from '../../src/db/notifier';

// Which waiting polls a NOTIFY wakes (src/agents/poll-waiters.ts), with the notifier's fan-out
// stood in by a map of handlers: one matching poll per queued job, the longest waiting first.

function harness(claimable = new Set<string>()) {
  const handlers = new Map<string, (payload: string) => void>();
  let reset = () => undefined as void;
  const notifier = {
    subscribe: (channel: string, fn: (p: string) => void) => (handlers.set(channel, fn), () => undefined),
    onReset: (fn: () => void) => ((reset = fn), () => undefined),
  } as unknown as Notifier;
  const checked: string[] = [];
  const waiters = new PollWaiters(notifier, async (jobId) => (checked.push(jobId), claimable.has(jobId)));
  const notify = (payload: string) => handlers.get(NOTIFY.jobQueued)!(payload);
  /** A poll waiting on workspace ws_1 with `labels`; `woken` resolves with what its wait said. */
  const poll = (
    nodeId: string,
    labels: Record<string, string> = {},
    o: { handOffs?: boolean; waitMs?: number } = {},
  ) => {
    const ticket = waiters.enter([NOTIFY.jobQueued, 'ws_1'], nodeId, labels, o.handOffs);
    const state = { woken: undefined as boolean | undefined, ticket };
    const wait = ticket.wait(o.waitMs ?? 5_000).then((w) => (state.woken = w));
    return Object.assign(state, { wait });
  };
  const tick = () => new Promise((r) => setImmediate(r));
  return { waiters, notify, poll, tick, checked, reset: () => reset() };
}

describe('poll waiters (no server): what a NOTIFY wakes', () => {
  it('a queued job wakes one poll whose labels match, the one that waited longest', async () => {
    const h = harness();
    const gpu = h.poll('n1', { gpu: 'yes' });
    const cpuOld = h.poll('n2', { os: 'linux' });
    const cpuNew = h.poll('n3', { os: 'linux', zone: 'a' });
    h.notify(`ws_1 job_1 {"os": "linux"}`);
    await h.tick();
    assert.deepEqual([gpu.woken, cpuOld.woken, cpuNew.woken], [undefined, true, undefined]);
    h.notify('ws_1 job_2 {"zone": "a"}');
    await h.tick();
    assert.equal(cpuNew.woken, true);
    h.notify('ws_other job_3 {}');
    await h.tick();
    assert.equal(gpu.woken, undefined, 'another workspace wakes nobody here');
    for (const p of [gpu, cpuOld, cpuNew]) p.ticket.dispose();
  });

  it('an offer the poll did not take goes on to the next matching poll while the job is still claimable', async () => {
    const h = harness(new Set(['job_1']));
    const a = h.poll('n1');
    const b = h.poll('n2');
    h.notify('ws_1 job_1 {}');
    await a.wait;
    await a.ticket.settle([]); // its claim found nothing it could take
    await h.tick();
    assert.deepEqual([b.woken, h.checked], [true, ['job_1']]);
    // b took it: nothing goes further.
    const c = h.poll('n3');
    await b.ticket.settle(['job_1']);
    await h.tick();
    assert.equal(c.woken, undefined);
    for (const p of [a, b, c]) p.ticket.dispose();
  });

  it('a job already gone is not passed on', async () => {
    const h = harness();
    const a = h.poll('n1');
    const b = h.poll('n2');
    h.notify('ws_1 job_1 {}');
    await a.wait;
    await a.ticket.settle([]);
    await h.tick();
    assert.deepEqual([b.woken, h.checked], [undefined, ['job_1']]);
    for (const p of [a, b]) p.ticket.dispose();
  });

  it('a drain wakes only its node; a payload naming no job and a lost connection wake every poll', async () => {
    const h = harness();
    const [a, b] = [h.poll('n1'), h.poll('n2')];
    h.notify('ws_1 node:n2');
    await h.tick();
    assert.deepEqual([a.woken, b.woken], [undefined, true]);
    const c = h.poll('n3');
    h.notify('ws_1');
    await h.tick();
    assert.deepEqual([a.woken, c.woken], [true, true]);
    const d = h.poll('n4');
    h.reset();
    await h.tick();
    assert.equal(d.woken, true);
    for (const p of [a, b, c, d]) p.ticket.dispose();
    assert.equal(h.waiters.size, 0);
  });

  it('a job queued while the poll claims wakes its next wait at once', async () => {
    const h = harness();
    const ticket = h.waiters.enter([NOTIFY.jobQueued, 'ws_1'], 'n1', {});
    h.notify('ws_1 job_1 {}');
    assert.equal(await ticket.wait(5_000), true);
    ticket.dispose();
  });
});

describe('poll waiters (no server): a job handed to a waiting poll', () => {
  const queue: [string, string] = [NOTIFY.jobQueued, 'ws_1'];

  it('takes the longest-waiting poll that takes hand-offs and matches, out of its line, and wakes it with the job', async () => {
    const h = harness();
    const plain = h.poll('n1', { gpu: 'yes' });
    const other = h.poll('n2', { gpu: 'no' }, { handOffs: true });
    const first = h.poll('n3', { gpu: 'yes' }, { handOffs: true });
    const second = h.poll('n4', { gpu: 'yes' }, { handOffs: true });
    const taken = h.waiters.take(queue, { gpu: 'yes' });
    assert.equal(taken?.nodeId, 'n3', 'not n1 (it weighs its own jobs), not n2 (labels)');
    // Out of its line: a NOTIFY meanwhile goes to another poll.
    plain.ticket.dispose();
    h.notify('ws_1 job_9 {"gpu": "yes"}');
    await h.tick();
    assert.deepEqual([first.woken, second.woken], [undefined, true]);
    assert.equal(taken!.deliver({ job: 'job_1' }), true);
    await first.wait;
    assert.equal(first.woken, true);
    assert.deepEqual(first.ticket.handed(), { job: 'job_1' });
    assert.equal(first.ticket.handed(), undefined, 'once');
    assert.equal(h.waiters.take(queue, { gpu: 'yes' }), undefined, 'no other poll waits for a gpu job');
    for (const p of [plain, other, first, second]) p.ticket.dispose();
  });

  it('a poll taken for a hand-off is held past its wait; one whose caller left is not handed anything; one released claims once', async () => {
    const h = harness();
    // The longest-waiting poll is the nearest its end: taken, it waits on for the run to start.
    const brief = h.poll('n1', {}, { handOffs: true, waitMs: 20 });
    const held = h.waiters.take(queue, {})!;
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(brief.woken, undefined, 'held past its 20 ms');
    assert.equal(held.deliver({ job: 'job_1' }), true);
    await brief.wait;
    assert.deepEqual([brief.woken, brief.ticket.handed()], [true, { job: 'job_1' }]);
    brief.ticket.dispose();

    const gone = h.poll('n3', {}, { handOffs: true });
    const taken = h.waiters.take(queue, {})!;
    (gone.ticket as unknown as { handleEvent(): void }).handleEvent(); // its caller hung up
    await gone.wait;
    assert.equal(gone.woken, false);
    assert.equal(taken.deliver({ job: 'job_2' }), false);
    gone.ticket.dispose();

    // Released, it claims once: a job notified while it was out of its line went to nobody.
    const patient = h.poll('n2', {}, { handOffs: true });
    const released = h.waiters.take(queue, {})!;
    h.notify('ws_1 job_3 {}');
    await h.tick();
    assert.equal(patient.woken, undefined, 'out of its line');
    released.release();
    await patient.wait;
    assert.deepEqual([patient.woken, patient.ticket.handed()], [true, undefined]);
    patient.ticket.dispose();
  });
});
