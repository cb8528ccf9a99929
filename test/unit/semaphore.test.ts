import assert from 'node:assert/strict';
import { createSemaphore } from '../../src/shared/semaphore';

describe('the semaphore', () => {
  it('lets in up to its size at once, and tryEnter only while a place is free and nobody waits', async () => {
    const s = createSemaphore(2);
    const first = s.tryEnter();
    assert.ok(first);
    const second = await s.enter(Date.now() + 1000);
    assert.ok(second);
    assert.equal(s.tryEnter(), null, 'full');

    const waiting = s.enter(Date.now() + 1000);
    first();
    first(); // a second release of the same place changes nothing
    assert.ok(await waiting, 'the place went to the one waiting');
    assert.equal(s.tryEnter(), null, 'still full: the waiter took the freed place');

    second();
    const third = s.tryEnter();
    assert.ok(third, 'a place is free again');
  });

  it('does not pass one already waiting', async () => {
    const s = createSemaphore(1);
    const held = s.tryEnter()!;
    const waiting = s.enter(Date.now() + 1000);
    held();
    assert.equal(s.tryEnter(), null, 'the waiter has the place');
    (await waiting)!();
    assert.ok(s.tryEnter());
  });

  it('answers null to a wait past its deadline', async () => {
    const s = createSemaphore(1);
    s.tryEnter();
    assert.equal(await s.enter(Date.now() + 20), null);
  });
});
