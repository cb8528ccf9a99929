import assert from 'node:assert/strict';
import path from 'node:path';
import { fastTimestamptz } from '../../src/db/timestamptz';

// The parser pg uses for timestamptz, found where pg's own type registry finds it: the reference.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const general = require(require.resolve('postgres-date', { paths: [path.dirname(require.resolve('pg-types'))] })) as (
  text: string,
) => Date | number | null;

describe('timestamptz read without a regular expression', () => {
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  let seed = 7;
  const random = (below: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % below;
  };

  it('answers what pg’s general parser answers, to the millisecond, for the forms PostgreSQL writes', () => {
    const offsets = ['+00', '-05', '+05:30', '-03:30', '+14', '-12', '+05:45:12'];
    let checked = 0;
    for (let i = 0; i < 20_000; i++) {
      const digits = random(7);
      const fraction = digits ? `.${pad(random(10 ** digits), digits)}` : '';
      const text =
        `${pad(100 + random(9900), 4)}-${pad(1 + random(12), 2)}-${pad(1 + random(28), 2)} ` +
        `${pad(random(24), 2)}:${pad(random(60), 2)}:${pad(random(60), 2)}${fraction}${offsets[random(offsets.length)]}`;
      const fast = fastTimestamptz(text);
      assert.ok(fast instanceof Date, text);
      assert.equal(fast.getTime(), (general(text) as Date).getTime(), text);
      checked++;
    }
    // Every millisecond's fraction, where a float could round the other way.
    for (let ms = 0; ms < 1000; ms++)
      for (const tail of ['', '4', '999']) {
        const text = `2026-12-06 11:00:00.${pad(ms, 3)}${tail}+00`;
        assert.equal(fastTimestamptz(text)?.getTime(), (general(text) as Date).getTime(), text);
        checked++;
      }
    assert.equal(checked, 23_000);
  });

  it('leaves every other form to the general parser', () => {
    for (const text of [
      'infinity',
      '-infinity',
      '0050-01-01 00:00:00+00',
      '0500-01-01 00:00:00+00 BC',
      '12345-01-01 00:00:00+00',
      '2026-12-06T11:00:00.123Z',
      '2026-12-06 11:00:00.+00',
      '2026-12-06 11:00:00 +00',
      '2026-12-06 11:00:00+0',
      '2026-12-06 11:00:00+05:3',
      '2026-12-06 11:00:00+05:3a',
      '2026-12-06 11:00:00+05:30:1x',
      '2026-12-06 11:00:00+05-30',
      '2026-12-06 11:0a:00+00',
      '2026-12-06',
    ])
      assert.equal(fastTimestamptz(text), undefined, text);
  });
});
