import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Timed, WaitClock } from '../../src/agents/wait-clock';

// One timer for every waiting poll (src/agents/wait-clock.ts): each expires once, in order of its
// due time, none that was taken off, and never in the async context of whoever armed the timer.
describe('wait clock (no server): one timer for many waits', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const store = new AsyncLocalStorage<string>();

  function timed(name: string, expired: Array<{ name: string; store?: string }>): Timed {
    return { due: 0, slot: -1, expire: () => void expired.push({ name, store: store.getStore() }) };
  }

  /** Waits until `done()` or two seconds: the timer fires late on a loaded machine, never early. */
  async function until(done: () => boolean) {
    for (const end = Date.now() + 2000; !done() && Date.now() < end;) await sleep(5);
  }

  it('expires each wait once, earliest first, none that was taken off', async () => {
    const clock = new WaitClock();
    const expired: Array<{ name: string }> = [];
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((n) => timed(n, expired));
    const now = Date.now();
    clock.add(c, now + 60);
    clock.add(a, now + 20);
    clock.add(d, now + 80);
    clock.add(b, now + 40);
    clock.add(e, now + 100);
    clock.remove(b);
    clock.remove(b); // twice: nothing
    clock.remove(a); // the head: the timer moves on to c
    assert.equal(clock.size, 3);
    await until(() => expired.length === 3);
    await sleep(20);
    assert.deepEqual(
      expired.map((x) => x.name),
      ['c', 'd', 'e'],
    );
    assert.equal(clock.size, 0);
    assert.deepEqual(
      [a, b, c].map((t) => t.slot),
      [-1, -1, -1],
    );
  });

  it('keeps the heap ordered through many adds and removals', async () => {
    const clock = new WaitClock();
    const expired: Array<{ name: string }> = [];
    const now = Date.now();
    const all = Array.from({ length: 200 }, (_, i) => ({ t: timed(String(i), expired), due: now + ((i * 37) % 50) }));
    for (const { t, due } of all) clock.add(t, due);
    for (const { t } of all.filter((_, i) => i % 3 === 0)) clock.remove(t);
    const kept = all.filter((_, i) => i % 3 !== 0);
    await until(() => expired.length >= kept.length);
    await sleep(20);
    assert.equal(expired.length, kept.length);
    const dueOf = new Map(all.map(({ due }, i) => [String(i), due] as const));
    const dues = expired.map((x) => dueOf.get(x.name)!);
    assert.deepEqual(
      dues,
      [...dues].sort((x, y) => x - y),
    );
  });

  it('expires outside the async context of the request that armed it', async () => {
    const clock = new WaitClock();
    const expired: Array<{ name: string; store?: string }> = [];
    store.run('request-1', () => clock.add(timed('a', expired), Date.now() + 10));
    await until(() => expired.length > 0);
    assert.deepEqual(expired, [{ name: 'a', store: undefined }]);
  });
});
