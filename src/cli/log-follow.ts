import { setTimeout as sleep } from 'node:timers/promises';
import { sseFrames } from '../shared/sse-frames';
import { CliError, type Target, authHeaders } from './api-client';

export interface LogEvent {
  seq: number;
  stream: 'stdout' | 'stderr';
  line: string;
  ts: string;
}
export interface TruncatedEvent {
  seq: number;
  droppedLines: number;
  droppedBytes: number;
}
export interface EndEvent {
  state: string;
  exitCode: number | null;
}

/**
 * Reads a job's log stream (SSE). Following, it reconnects after a dropped connection with
 * Last-Event-ID, so no line is lost or shown twice; it resolves with the `end` event (or null
 * when not following and the job is still going).
 */
export async function readJobLog(
  target: Target,
  jobId: string,
  opts: { follow: boolean; onLine: (e: LogEvent) => void; onTruncated?: (e: TruncatedEvent) => void },
): Promise<EndEvent | null> {
  let lastSeq = 0;
  for (let failures = 0; ;) {
    let res: Response;
    try {
      const url = new URL(`/api/compute/jobs/${encodeURIComponent(jobId)}/logs`, target.apiUrl);
      if (!opts.follow) url.searchParams.set('follow', 'false');
      res = await fetch(url, {
        headers: {
          Accept: 'text/event-stream',
          ...authHeaders(target),
          ...(lastSeq ? { 'Last-Event-ID': String(lastSeq) } : {}),
        },
      });
    } catch {
      if (!opts.follow || failures > 30) throw new CliError(`cannot reach the API at ${target.apiUrl}`);
      await sleep(Math.min(5000, 250 * 2 ** failures++));
      continue;
    }
    if (!res.ok) {
      const reply = (await res.json().catch(() => null)) as { message?: string; code?: string } | null;
      throw new CliError(`${reply?.message ?? `HTTP ${res.status}`}${reply?.code ? ` [${reply.code}]` : ''}`);
    }
    failures = 0;
    try {
      for await (const frame of sseFrames(res.body)) {
        if (!frame.data) continue; // a keep-alive comment
        const parsed = JSON.parse(frame.data);
        if (frame.event === 'end') return parsed as EndEvent;
        if (frame.event === 'log') opts.onLine(parsed as LogEvent);
        else if (frame.event === 'log.truncated') opts.onTruncated?.(parsed as TruncatedEvent);
        if (typeof parsed.seq === 'number') lastSeq = parsed.seq;
      }
    } catch {
      // The connection dropped mid-stream: resume after the last line seen.
    }
    if (!opts.follow) return null;
  }
}

/** The exit status a person expects of a finished job, as `docker run` or `timeout` would give. */
export function exitStatusOf(end: EndEvent): number {
  if (end.state === 'succeeded') return 0;
  if (end.state === 'timed-out') return 124;
  if (end.state === 'cancelled') return 130;
  return end.exitCode && end.exitCode > 0 ? end.exitCode : 1;
}
