import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export interface CapturedLog {
  log: Logger;
  /** Every line written so far, parsed. */
  lines(): Array<{ level: number; msg: string; [field: string]: unknown }>;
  /** Everything written so far, as written. */
  text(): string;
}

/** A real pino logger writing JSON lines to memory, so a test can read what was logged. */
export function captureLog(level = 'info'): CapturedLog {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const text = () => chunks.join('');
  return {
    log: pino({ level }, sink),
    text,
    lines: () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
  };
}
