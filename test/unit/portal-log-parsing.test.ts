import assert from 'node:assert/strict';
import { color256, parseAnsi } from '../../src/portal/web/ansi';
import { SseParser } from '../../src/portal/web/sse';

// The portal's two parsers of what a job and the API send: ANSI escapes into styled text (a job's
// output is hostile: whatever it sends stays text), and SSE frames cut anywhere.

const ESC = '\x1b';

describe("the portal's log parsing", () => {
  describe('ANSI', () => {
    it('renders SGR colours and attributes as styles, reset by 0 and by their own off codes', () => {
      assert.deepEqual(parseAnsi(`${ESC}[1;31mfail${ESC}[22m red${ESC}[0m plain`), [
        { text: 'fail', fg: '#ff7b72', bold: true },
        { text: ' red', fg: '#ff7b72' },
        { text: ' plain' },
      ]);
      assert.deepEqual(parseAnsi(`${ESC}[92;44mhi${ESC}[39mx${ESC}[m`), [
        { text: 'hi', fg: '#aff5b4', bg: '#79c0ff' },
        { text: 'x', bg: '#79c0ff' },
      ]);
      assert.deepEqual(parseAnsi(`${ESC}[3;4mslanted${ESC}[23;24mx`), [
        { text: 'slanted', italic: true, underline: true },
        { text: 'x' },
      ]);
      assert.deepEqual(parseAnsi(`${ESC}[7minverse`), [{ text: 'inverse', fg: '#0d1117', bg: '#e6edf3' }]);
    });

    it('takes 256 colours and true colour, and ignores a malformed one', () => {
      assert.deepEqual(parseAnsi(`${ESC}[38;5;196mA${ESC}[48;2;1;2;3mB`), [
        { text: 'A', fg: '#ff0000' },
        { text: 'B', fg: '#ff0000', bg: '#010203' },
      ]);
      assert.deepEqual(
        [color256(16), color256(231), color256(232), color256(255), color256(256)],
        ['#000000', '#ffffff', '#080808', '#eeeeee', undefined],
      );
      assert.deepEqual(parseAnsi(`${ESC}[38;2;300;0;0mC`), [{ text: 'C' }]);
    });

    it('drops every other escape and control character; markup stays text', () => {
      const hostile = `${ESC}]0;title${ESC}\\${ESC}[2J${ESC}[10;1H<img src=x onerror=alert(1)>${ESC}[?25l\x07\x00done\tok${ESC}`;
      assert.deepEqual(parseAnsi(hostile), [{ text: '<img src=x onerror=alert(1)>' }, { text: 'done\tok' }]);
      assert.deepEqual(parseAnsi(''), []);
      assert.deepEqual(parseAnsi(`${ESC}[31m`), [], 'a line of escapes alone shows nothing');
    });
  });

  describe('SSE', () => {
    const frames =
      'event: log\nid: 1\ndata: {"seq":1}\n\n: keep-alive\n\nevent: log\nid: 2\ndata: {"seq":2}\n\nevent: end\ndata: {"state":"SUCCEEDED"}\n\n';

    it('parses whole frames, skips comments, keeps the last id', () => {
      assert.deepEqual(new SseParser().push(frames), [
        { event: 'log', data: '{"seq":1}', id: '1' },
        { event: 'log', data: '{"seq":2}', id: '2' },
        { event: 'end', data: '{"state":"SUCCEEDED"}', id: '2' },
      ]);
    });

    it('gives the same events however the stream is cut, \\r\\n included', () => {
      const whole = new SseParser().push(frames.replaceAll('\n', '\r\n'));
      for (let size = 1; size <= 7; size++) {
        const p = new SseParser();
        const got = [];
        const text = frames.replaceAll('\n', '\r\n');
        for (let i = 0; i < text.length; i += size) got.push(...p.push(text.slice(i, i + size)));
        assert.deepEqual(got, whole, `chunks of ${size}`);
      }
    });

    it('holds a frame back until its blank line, joins data lines, defaults the event to message', () => {
      const p = new SseParser();
      assert.deepEqual(p.push('data: a\ndata:b\n'), []);
      assert.deepEqual(p.push('\n'), [{ event: 'message', data: 'a\nb', id: undefined }]);
      assert.deepEqual(p.push('event: x\n\n'), [], 'a frame without data is no event');
    });
  });
});
