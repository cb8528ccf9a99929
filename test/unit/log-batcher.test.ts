import assert from 'node:assert/strict';
import { ApiRefusal } from '../../src/agent/api';
import { type LogLine, LogBatcher } from '../../src/agent/log-batcher';

describe('the agent’s log batcher', () => {
  it('drops a batch the API refuses with a 4xx, notes it in the log, and sends the rest', async () => {
    const sent: LogLine[] = [];
    let refusals = 0;
    const batcher = new LogBatcher({
      maxLines: 2,
      intervalMs: 10,
      onLeaseLost: () => assert.fail('a 400 is not a lost lease'),
      send: async (lines) => {
        if (lines.some((l) => l.line.startsWith('poison'))) {
          refusals++;
          throw new ApiRefusal(400, 'request.invalid', 'The request is invalid');
        }
        sent.push(...lines);
      },
    });
    for (const line of ['one', 'two', 'poison', 'three', 'four', 'five']) batcher.push('stdout', line);
    await batcher.close();
    assert.equal(refusals, 1, 'the refused batch is not sent again');
    const texts = sent.map((l) => l.line);
    assert.deepEqual(texts.filter((t) => !t.startsWith('[compute-agent]')), ['one', 'two', 'four', 'five']);
    assert.ok(texts.some((t) => /^\[compute-agent\] 2 log lines were refused by the API \(request\.invalid/.test(t)), texts.join('|'));
  });

  it('does not note a refused note again (no loop), and replaces NUL before sending', async () => {
    const sent: LogLine[] = [];
    let calls = 0;
    const batcher = new LogBatcher({
      maxLines: 1,
      intervalMs: 10,
      onLeaseLost: () => assert.fail('not lost'),
      send: async (lines) => {
        calls++;
        if (lines.some((l) => l.line === 'refused' || l.line.startsWith('[compute-agent]'))) throw new ApiRefusal(403, 'auth.forbidden', 'no');
        sent.push(...lines);
      },
    });
    batcher.push('stdout', 'refused');
    batcher.push('stdout', 'a\u0000b');
    await batcher.close();
    assert.equal(calls, 3, 'the line, the next line, then the refused line’s note: each sent once');
    assert.deepEqual(sent.map((l) => l.line), ['a\uFFFDb']);
  });
});
