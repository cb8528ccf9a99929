import { setTimeout as sleep } from 'node:timers/promises';
import { storableText } from '../shared/text';
import { ApiRefusal, backoffMs } from './api';

export interface LogLine {
  seq: number;
  stream: 'stdout' | 'stderr';
  line: string;
  ts: string;
}

export interface BatcherOptions {
  send: (lines: LogLine[]) => Promise<void>;
  /** The API said the lease is gone (409): stop the job. */
  onLeaseLost: (err: ApiRefusal) => void;
  onError?: (err: unknown) => void;
  maxLines?: number;
  maxBytes?: number;
  intervalMs?: number;
  /** Lines held while the API is unreachable; past it new lines are counted, not kept. */
  maxBuffered?: number;
}

const MAX_LINE_CHARS = 60_000; // under the API's 64 KiB per line

/** The documented numbers (docs/guides/agents-and-cli.md): 100 lines, 512 KiB or 200 ms, whichever comes first; 100000 lines held. */
const LOG_BATCH_DEFAULTS = { maxLines: 100, maxBytes: 512 * 1024, intervalMs: 200, maxBuffered: 100_000 };

/** What a line counts against `maxBytes`: its text plus about what its seq, stream and ts add. */
const costOf = (l: LogLine) => Buffer.byteLength(l.line) + 64;

/**
 * One job's log on its way to the API: a batch goes as soon as `maxLines` lines or `maxBytes` are
 * waiting, else `intervalMs` after its first line; one batch in flight at a time, retried until
 * accepted. Pushes are idempotent on seq, so a retried batch never doubles a line.
 */
export class LogBatcher {
  private readonly buffer: LogLine[] = [];
  /** The cost of everything in `buffer`. */
  private bufferedBytes = 0;
  private nextSeq = 1;
  private dropped = 0;
  /** Seqs of the agent's own notes still buffered. */
  private readonly notes = new Set<number>();
  private timer?: NodeJS.Timeout;
  private inflight?: Promise<void>;
  private closed = false;
  private lost = false;
  private readonly o: Required<Omit<BatcherOptions, 'onError'>> & Pick<BatcherOptions, 'onError'>;

  constructor(opts: BatcherOptions) {
    this.o = { ...LOG_BATCH_DEFAULTS, ...opts };
  }

  push(stream: 'stdout' | 'stderr', text: string): void {
    if (this.lost) return;
    if (this.buffer.length >= this.o.maxBuffered) {
      this.dropped++;
      return;
    }
    if (this.dropped > 0)
      this.note(
        `[compute-agent] ${this.dropped} lines dropped: output came faster than the API took it (or the API was unreachable)`,
      );
    const line = text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…[line truncated]` : text;
    this.append(stream, storableText(line));
  }

  private note(text: string) {
    this.dropped = 0;
    this.notes.add(this.nextSeq);
    this.append('stderr', text);
  }

  private append(stream: 'stdout' | 'stderr', line: string) {
    const entry: LogLine = { seq: this.nextSeq++, stream, line, ts: new Date().toISOString() };
    this.buffer.push(entry);
    this.bufferedBytes += costOf(entry);
    if (this.batchReady()) this.kick();
    else this.timer ??= setTimeout(() => this.kick(), this.o.intervalMs);
  }

  /** A whole batch is waiting (by lines or by bytes): it goes now, not at the next tick. */
  private batchReady(): boolean {
    return this.buffer.length >= this.o.maxLines || this.bufferedBytes >= this.o.maxBytes;
  }

  private remove(n: number): void {
    for (const l of this.buffer.splice(0, n)) this.bufferedBytes -= costOf(l);
  }

  private kick(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.inflight ??= this.drain().finally(() => (this.inflight = undefined));
  }

  private async drain(): Promise<void> {
    for (let attempt = 0; this.buffer.length > 0 && !this.lost;) {
      const batch = this.takeBatch();
      try {
        await this.o.send(batch);
        this.remove(batch.length);
        for (const l of batch) this.notes.delete(l.seq);
        attempt = 0;
        if (!this.batchReady() && !this.closed) break; // the timer sends the rest
      } catch (err) {
        if (err instanceof ApiRefusal && (err.status === 409 || err.status === 404)) {
          this.lost = true;
          this.remove(this.buffer.length);
          this.o.onLeaseLost(err);
          return;
        }
        this.o.onError?.(err);
        if (err instanceof ApiRefusal) {
          // Sent again it is refused again: drop it and say so in the log, so the batches behind
          // it, and the job's result, are not held back forever. A refused note is not re-noted.
          this.remove(batch.length);
          const lines = batch.filter((l) => !this.notes.delete(l.seq)).length;
          if (lines > 0)
            this.note(
              `[compute-agent] ${lines} log lines were refused by the API (${err.code}: ${err.message}) and dropped`,
            );
          continue;
        }
        await sleep(backoffMs(attempt++));
      }
    }
    if (this.buffer.length > 0 && !this.lost) this.timer ??= setTimeout(() => this.kick(), this.o.intervalMs);
  }

  private takeBatch(): LogLine[] {
    let bytes = 0;
    let n = 0;
    while (n < this.buffer.length && n < this.o.maxLines) {
      bytes += costOf(this.buffer[n]);
      if (n > 0 && bytes > this.o.maxBytes) break;
      n++;
    }
    return this.buffer.slice(0, n);
  }

  /** Sends everything still held; resolves once the API has it all (or the lease is gone). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.dropped > 0)
      this.note(
        `[compute-agent] ${this.dropped} lines dropped: output came faster than the API took it (or the API was unreachable)`,
      );
    while (this.buffer.length > 0 && !this.lost) {
      this.kick();
      await this.inflight;
    }
    clearTimeout(this.timer);
  }

  get leaseLost(): boolean {
    return this.lost;
  }
}
