import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import { NOTIFY } from '../db/channels';
import type { Notifier } from '../db/notifier';
import type { Job } from '../jobs/record';
import type { LogEvent, LogsService } from '../logs/service';
import { AppError } from '../shared/errors';
import { isTerminal } from '../../workflows/definitions';

export interface LogStreamDeps {
  logs: LogsService;
  notifier: Notifier;
  keepAliveMs: number;
  log: Logger;
  /** Re-reads the job (already authorized by the caller). */
  loadJob: () => Promise<Job>;
  /** The state as the surface spells it, for the `end` event. */
  renderState: (job: Job) => string;
  /** False: send what is stored (and `end` if the job is over), then close instead of following. */
  follow?: boolean;
  /** Re-checks the credential the stream began with; checked at each keep-alive. */
  credentialValid: () => Promise<boolean>;
  /** When the credential expires by itself (epoch ms): the stream ends then. */
  credentialExpiresAt?: number;
  /** Called once when the stream ends, however it ends. */
  onClose?: () => void;
}

function frame(e: LogEvent): string {
  if (e.kind === 'truncated') {
    const data = { seq: e.seq, droppedLines: e.droppedLines, droppedBytes: e.droppedBytes, ts: e.ts };
    return `event: log.truncated\nid: ${e.seq}\ndata: ${JSON.stringify(data)}\n\n`;
  }
  return `event: log\nid: ${e.seq}\ndata: ${JSON.stringify({ seq: e.seq, stream: e.stream, line: e.line, ts: e.ts })}\n\n`;
}

export function lastEventIdOf(ctx: Context): number {
  const raw = ctx.get('Last-Event-ID') || (typeof ctx.query.lastEventId === 'string' ? ctx.query.lastEventId : '');
  if (raw === '') return 0;
  if (!/^\d{1,15}$/.test(raw)) throw new AppError('request.invalid', 'Last-Event-ID must be a log sequence number');
  return Number(raw);
}

/**
 * Streams a job's log as SSE (CONTRACT §7): everything after Last-Event-ID, then live lines as
 * NOTIFY announces them on any API instance, then `end` once the job is terminal and every line
 * is out. A comment every `keepAliveMs` keeps proxies from closing an idle stream.
 */
export function streamJobLogs(ctx: Context, jobId: string, afterSeq: number, deps: LogStreamDeps): void {
  const out = new PassThrough();
  ctx.state.raw = true;
  ctx.status = 200;
  ctx.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.body = out;
  const abort = new AbortController();
  ctx.res.once('close', () => abort.abort());

  const write = async (chunk: string) => {
    if (!out.write(chunk)) await Promise.race([once(out, 'drain'), once(abort.signal, 'abort')]);
  };

  const pump = async () => {
    let last = afterSeq;
    let checkedAt = Date.now();
    await write(': stream open\n\n');
    while (!abort.signal.aborted) {
      const ticket = deps.notifier.ticket([NOTIFY.jobLogs, jobId], [NOTIFY.jobState, jobId]);
      const { events, full } = await deps.logs.read(jobId, last);
      for (const e of events) {
        await write(frame(e));
        last = e.seq;
      }
      if (full) {
        ticket.dispose();
        continue;
      }
      const job = await deps.loadJob();
      // Lines are pushed before the result, so once terminal a last read finds every line.
      if (isTerminal(job.state) && (await deps.logs.read(jobId, last, { maxRows: 1 })).events.length === 0) {
        ticket.dispose();
        await write(`event: end\ndata: ${JSON.stringify({ state: deps.renderState(job), exitCode: job.exitCode })}\n\n`);
        break;
      }
      if (deps.follow === false) {
        ticket.dispose();
        break;
      }
      const untilExpiry = (deps.credentialExpiresAt ?? Infinity) - Date.now();
      let woken = false;
      if (untilExpiry > 0) woken = await ticket.wait(Math.min(deps.keepAliveMs, untilExpiry), abort.signal);
      else ticket.dispose();
      if (abort.signal.aborted) break;
      // A revoked or expired credential reads nothing more (a reconnect gets 401); checked once
      // per keep-alive interval, however busy the log.
      if (Date.now() - checkedAt >= deps.keepAliveMs || Date.now() >= (deps.credentialExpiresAt ?? Infinity)) {
        checkedAt = Date.now();
        if (Date.now() >= (deps.credentialExpiresAt ?? Infinity) || !(await deps.credentialValid())) {
          await write(': credential revoked or expired\n\n');
          break;
        }
      }
      if (!woken) await write(': keep-alive\n\n');
    }
  };
  pump()
    .catch((err) => deps.log.warn({ err, jobId }, 'log stream failed'))
    .finally(() => {
      out.end();
      deps.onClose?.();
    });
}
