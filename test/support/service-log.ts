import { Writable } from 'node:stream';
import pino from 'pino';

// The suite's services log warnings here instead of the terminal (tests provoke outages on
// purpose); when a test fails, what they logged during it is printed beside the failure.
const KEEP = 500;
const lines: string[] = [];
let written = 0;

const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(chunk.toString().trimEnd());
    if (lines.length > KEEP) lines.shift();
    written++;
    done();
  },
});

export const recordedLog = pino({ level: 'warn' }, sink);

/** A mark to read from later. */
export const logMark = () => written;

/** One line a person reads: the message and its fields, without stacks or process details. */
function readable(line: string): string {
  try {
    const { msg, level: _l, time: _t, pid: _p, hostname: _h, ...fields } = JSON.parse(line) as Record<string, unknown>;
    const rest = JSON.stringify(fields, (key, value) => (key === 'stack' ? undefined : value));
    return rest === '{}' ? String(msg) : `${String(msg)} ${rest}`;
  } catch {
    return line;
  }
}

/** What was logged since `mark` (at most the last KEEP lines). */
export function loggedSince(mark: number): string[] {
  return lines.slice(Math.max(0, lines.length - (written - mark))).map(readable);
}
