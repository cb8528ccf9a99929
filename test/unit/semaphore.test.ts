import assert from 'node:assert/strict';
import { createSemaphore } from '../../src/shared/semaphore';

const soon = () => Date.now() + 1000;

describe('the semaphore', () => {
  it('lets in up to its size at once; enterUpTo takes the places free now, up to what it asks', async () => {
    const s = createSemaphore(3);
    const two = await s.enterUpTo(2, soon());
    assert.equal(two?.places, 2);
    const rest = await s.enterUpTo(5, soon());
    assert.equal(rest?.places, 1, 'only one place was left');

    const waiting = s.enter(soon());
    rest!.leave();
    rest!.leave(); // a second release of the same places changes nothing
    const waiter = await waiting;
    assert.ok(waiter, 'the freed place went to the one waiting');
    assert.equal(await s.enterUpTo(1, Date.now() + 20), null, 'still full: the waiter took the freed place');

    two!.leave();
    assert.equal((await s.enterUpTo(3, soon()))?.places, 2, 'both places the batch gave back are free again');
  });

  it('takes no extra place that one already waiting is owed', async () => {
    const s = createSemaphore(2);
    const held = (await s.enterUpTo(2, soon()))!;
    const first = s.enterUpTo(2, soon());
    const second = s.enter(soon());
    held.leave();
    assert.equal((await first)?.places, 1, 'the other freed place is the next waiter’s');
    assert.ok(await second);
  });

  it('answers null to a wait past its deadline', async () => {
    const s = createSemaphore(1);
    await s.enter(soon());
    assert.equal(await s.enterUpTo(2, Date.now() + 20), null);
  });
});
