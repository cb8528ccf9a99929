import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { LogFollows } from '../jobs/log-follows';
import type { FeedFollower, FeedPage, LogFeeds } from '../logs/feeds';
import type { LogEvent, LogsService } from '../logs/service';
import { z } from 'zod';
import { AppError } from '../shared/errors';
import { type JobState, isTerminal } from '../../workflows/definitions';

export interface LogStreamDeps {
  logs: LogsService;
  feeds: LogFeeds;
  /** A follower marks the job before its first read: only a followed job's end is notified. */
  logFollows: Pick<LogFollows, 'mark'>;
  keepAliveMs: number;
  /** Bytes a follower may have waiting to be sent; past it the stream is cut (the client resumes with Last-Event-ID). */
  maxBufferedBytes: number;
  log: Logger;
  /** The state as the surface spells it, for the `end` event. */
  renderState: (state: JobState) => string;
  /** False: send what is stored (and `end` if the job is over), then close instead of following. */
  follow?: boolean;
  /** Re-checks the credential the stream began with; checked at each keep-alive. */
  credentialValid: () => Promise<boolean>;
  /** When the credential expires by itself (epoch ms): the stream ends then. */
  credentialExpiresAt?: number;
  /** Called once when the stream ends, however it ends. */
  onClose?: () => void;
}

/** One event of a log stream as the OpenAPI document describes it (both surfaces send the same). */
export const SseLogEvent = z
  .object({
    event: z.enum(['log', 'log.truncated', 'end']),
    id: z.string().optional().meta({ description: 'The seq; resume after it with Last-Event-ID' }),
    data: z.string().meta({
      description:
        'JSON. log: {seq, stream, line, ts}; log.truncated: {seq, droppedLines, droppedBytes, ts}; end: {state, exitCode}',
    }),
  })
  .meta({ id: 'SseLogEvent', description: 'A server-sent event (comments are keep-alives)' });

function frame(e: LogEvent): string {
  if (e.kind === 'truncated') {
    const data = { seq: e.seq, droppedLines: e.droppedLines, droppedBytes: e.droppedBytes, ts: e.ts };
    return `event: log.truncated\nid: ${e.seq}\ndata: ${JSON.stringify(data)}\n\n`;
  }
  return `event: log\nid: ${e.seq}\ndata: ${JSON.stringify({ seq: e.seq, stream: e.stream, line: e.line, ts: e.ts })}\n\n`;
}

// A feed's page goes to every follower of the job: its frames are rendered and encoded once.
const rendered = new WeakMap<FeedPage, Buffer>();
const framesOf = (events: LogEvent[]) => events.map(frame).join('');
function pageFrames(page: FeedPage): Buffer {
  let bytes = rendered.get(page);
  if (bytes === undefined) rendered.set(page, (bytes = Buffer.from(framesOf(page.events))));
  return bytes;
}

export function lastEventIdOf(ctx: Context): number {
  // A header sent empty is malformed, not absent (a browser's EventSource leaves it out instead).
  const sent = ctx.headers['last-event-id'] !== undefined;
  const raw = sent ? ctx.get('Last-Event-ID') : typeof ctx.query.lastEventId === 'string' ? ctx.query.lastEventId : '';
  if (raw === '' && !sent) return 0;
  if (!/^\d{1,15}$/.test(raw)) throw new AppError('request.invalid', 'Last-Event-ID must be a log sequence number');
  return Number(raw);
}

/**
 * Streams a job's log as SSE (CONTRACT §7): everything after Last-Event-ID, read by this stream
 * itself, then live lines from the job's feed (one reader per job in this instance, woken by
 * NOTIFY from any instance), then `end` once the job is terminal and every line is out. A comment
 * every `keepAliveMs` of silence keeps proxies from closing an idle stream.
 *
 * A follower is never waited on once live: a client that reads slower than the job writes has
 * its stream cut when `maxBufferedBytes` wait for it, and resumes with Last-Event-ID.
 */
export function streamJobLogs(ctx: Context, jobId: string, afterSeq: number, deps: LogStreamDeps): void {
  const out = new PassThrough();
  ctx.state.raw = true;
  ctx.status = 200;
  ctx.set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
  });
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.body = out;

  let position = afterSeq;
  let closed = false;
  /** Whether anything was sent since the last keep-alive tick. */
  let sent = false;
  let leave: (() => void) | undefined;
  let expiryTimer: NodeJS.Timeout | undefined;
  let tickTimer: NodeJS.Timeout | undefined;

  const close = () => {
    if (closed) return;
    closed = true;
    leave?.();
    clearTimeout(expiryTimer);
    clearTimeout(tickTimer);
    out.end();
    deps.onClose?.();
  };
  ctx.res.once('close', close);
  const backlog = () => out.writableLength + out.readableLength;
  /** Queues `text` without waiting; live, cuts the stream when too much waits for the client. */
  const send = (text: string | Buffer, live = true) => {
    if (closed) return;
    out.write(text);
    sent = true;
    if (live && backlog() > deps.maxBufferedBytes) {
      // What waits for it is dropped with the connection at once (a client that never reads
      // would hold it for good); its SSE client discards a partial frame and resumes after the
      // last whole one.
      deps.log.info({ jobId, position }, 'log follower too slow; stream cut (the client resumes with Last-Event-ID)');
      ctx.res.destroy();
      close();
    }
  };
  /** Writes `text` and waits until the client took it (only while replaying, on this stream's own reads). */
  const write = async (text: string) => {
    send(text, false);
    if (closed || backlog() <= out.writableHighWaterMark) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done);
        ctx.res.off('close', done);
        resolve();
      };
      out.on('drain', done);
      ctx.res.on('close', done);
    });
  };
  const end = (job: { state: JobState; exitCode: number | null }) => {
    send(`event: end\ndata: ${JSON.stringify({ state: deps.renderState(job.state), exitCode: job.exitCode })}\n\n`);
    close();
  };

  const follower: FeedFollower = {
    get position() {
      return position;
    },
    page(page) {
      if (closed) return;
      const last = page.events[page.events.length - 1].seq;
      if (last <= position) return;
      send(page.after >= position ? pageFrames(page) : framesOf(page.events.filter((e) => e.seq > position)));
      position = last;
    },
    end,
    fail: close,
  };

  // A revoked or expired credential reads nothing more (a reconnect gets 401): checked once per
  // keep-alive interval, however busy the log, and at the credential's own expiry.
  const expired = () => {
    send(': credential revoked or expired\n\n');
    close();
  };
  if (deps.credentialExpiresAt !== undefined)
    expiryTimer = setTimeout(expired, Math.max(0, deps.credentialExpiresAt - Date.now()));
  const tick = () => {
    void deps.credentialValid().then(
      (valid) => {
        if (closed) return;
        if (!valid) return expired();
        if (!sent) send(': keep-alive\n\n');
        sent = false;
        tickTimer = setTimeout(tick, deps.keepAliveMs);
      },
      (err) => {
        deps.log.warn({ err: String(err), jobId }, 'log stream: credential check failed; stream closed');
        close();
      },
    );
  };
  tickTimer = setTimeout(tick, deps.keepAliveMs);

  const replay = async () => {
    await write(': stream open\n\n');
    if (deps.follow !== false) await deps.logFollows.mark(jobId);
    while (!closed) {
      const page = await deps.logs.read(jobId, position);
      if (closed) return;
      if (page.events.length > 0) {
        await write(framesOf(page.events));
        position = page.events[page.events.length - 1].seq;
      }
      if (page.full) continue;
      if (page.job && isTerminal(page.job.state)) return end(page.job);
      if (deps.follow === false || !page.job) return close();
      // Caught up as of that read: live from here, unless the job's feed has read past us already.
      const joined = deps.feeds.join(jobId, follower);
      if (joined) {
        if (closed) joined();
        else leave = joined;
        return;
      }
    }
  };
  replay().catch((err) => {
    deps.log.warn({ err: String(err), jobId }, 'log stream failed');
    close();
  });
}
