import assert from 'node:assert/strict';
import { decodeTime } from 'ulid';
import { newId } from '../../src/shared/ids';

// IDs draw their random part from a pooled CSPRNG buffer: still unique, sortable by time, and
// every character of the random part spread over the whole alphabet.
describe('IDs', () => {
  it('are unique and sort in the order they were made, across many refills of the pool', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('job'));
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids);
    assert.match(ids[0], /^job_[0-9a-hjkmnp-tv-z]{26}$/);
    const made = decodeTime(ids[0].slice(4).toUpperCase());
    assert.ok(Math.abs(made - Date.now()) < 60_000, `time part ${new Date(made).toISOString()}`);
  });

  it('spread their random part over the whole alphabet, each character about as often', () => {
    // The random part of IDs made in different milliseconds (within one, the library increments
    // the last one instead of drawing anew), its last character left out for the same reason.
    const counts = new Map<string, number>();
    let last = '';
    for (let i = 0; i < 300;) {
      const id = newId('job').slice(4);
      if (id.slice(0, 10) === last) continue;
      last = id.slice(0, 10);
      for (const c of id.slice(10, 25)) counts.set(c, (counts.get(c) ?? 0) + 1);
      i++;
    }
    assert.equal(counts.size, 32);
    // 4500 draws, about 140 each; a fair draw falls outside 70..220 about once in 10^9.
    for (const [c, n] of counts) assert.ok(n > 70 && n < 220, `${c}: ${n}`);
  });
});
