import assert from 'node:assert/strict';
import { ApiRefusal } from '../../src/reference-agent/api';
import { type LogLine, LogBatcher } from '../../src/reference-agent/log-batcher';

/** A batcher over a stand-in API that refuses the batches `refusal` returns an error for. */
function batcherRefusing(maxLines: number, refusal: (lines: LogLine[]) => ApiRefusal | null) {
  const sent: LogLine[] = [];
  const tally = { calls: 0, refusals: 0 };
  const batcher = new LogBatcher({
    maxLines,
    intervalMs: 10,
    onLeaseLost: () => assert.fail('a refusal other than 409/404 is not a lost lease'),
    send: async (lines) => {
      tally.calls++;
      const refused = refusal(lines);
      if (refused) {
        tally.refusals++;
        throw refused;
      }
      sent.push(...lines);
    },
  });
  return { batcher, sent, tally };
}

const isNote = (line: string) => line.startsWith('[compute-agent]');

describe('the agent’s log batcher', () => {
  it('drops a batch the API refuses with a 4xx, notes it in the log, and sends the rest', async () => {
    const { batcher, sent, tally } = batcherRefusing(2, (lines) =>
      lines.some((l) => l.line.startsWith('poison'))
        ? new ApiRefusal(400, 'request.invalid', 'The request is invalid')
        : null,
    );
    for (const line of ['one', 'two', 'poison', 'three', 'four', 'five']) batcher.push('stdout', line);
    await batcher.close();
    assert.equal(tally.refusals, 1, 'the refused batch is not sent again');
    const texts = sent.map((l) => l.line);
    assert.deepEqual(
      texts.filter((t) => !isNote(t)),
      ['one', 'two', 'four', 'five'],
    );
    assert.ok(
      texts.some((t) => /^\[compute-agent\] 2 log lines were refused by the API \(request\.invalid/.test(t)),
      texts.join('|'),
    );
  });

  it('does not note a refused note again (no loop), and replaces NUL before sending', async () => {
    const { batcher, sent, tally } = batcherRefusing(1, (lines) =>
      lines.some((l) => l.line === 'refused' || isNote(l.line)) ? new ApiRefusal(403, 'auth.forbidden', 'no') : null,
    );
    batcher.push('stdout', 'refused');
    batcher.push('stdout', 'a\u0000b');
    await batcher.close();
    assert.equal(tally.calls, 3, 'the line, the next line, then the refused line’s note: each sent once');
    assert.deepEqual(
      sent.map((l) => l.line),
      ['a\uFFFDb'],
    );
  });

  describe('a whole batch goes when it is waiting, not at the next tick', () => {
    /** A batcher whose tick never comes within a test: whatever it sends is a whole batch's doing. */
    function batcherWithoutTick() {
      const sends: LogLine[][] = [];
      const batcher = new LogBatcher({
        intervalMs: 3_600_000,
        onLeaseLost: () => assert.fail('no lease is lost here'),
        send: async (lines) => {
          sends.push(lines);
        },
      });
      return { batcher, sends };
    }
    const settle = () => new Promise((r) => setImmediate(r));

    it('100 lines: one push of 100 at once, the 101st held for its tick', async () => {
      const { batcher, sends } = batcherWithoutTick();
      for (let i = 1; i <= 101; i++) batcher.push('stdout', `line-${i}`);
      await settle();
      assert.deepEqual(
        sends.map((b) => b.length),
        [100],
      );
      await batcher.close();
      assert.deepEqual(
        sends.map((b) => b.length),
        [100, 1],
      );
    });

    it('512 KiB: ten lines of 50 000 bytes go at once (an eleventh would pass 512 KiB), never more in a push', async () => {
      const { batcher, sends } = batcherWithoutTick();
      const big = 'x'.repeat(50_000);
      for (let i = 1; i <= 25; i++) batcher.push('stdout', `big-${i}-${big}`);
      await settle();
      assert.deepEqual(
        sends.map((b) => b.length),
        [10, 10],
      );
      assert.ok(sends.every((b) => b.reduce((n, l) => n + Buffer.byteLength(l.line), 0) <= 512 * 1024));
      await batcher.close();
      assert.deepEqual(
        sends.flatMap((b) => b.map((l) => l.seq)),
        Array.from({ length: 25 }, (_, i) => i + 1),
      );
    });
  });
});
