import { sseFrames } from '../../src/shared/sse-frames';
import { testEnv } from './env';
import { credentialHeaders } from './http';

export interface SseEvent {
  event: string;
  id?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

/** Reads a job's SSE log stream until `end` or until `stopAfter` events, returning events and comments. */
export async function readLogStream(
  key: string,
  jobId: string,
  opts: {
    lastEventId?: string;
    stopAfter?: number;
    timeoutMs?: number;
    onEvent?: (e: SseEvent) => void;
    baseUrl?: string;
    surface?: 'a' | 'b';
  } = {},
): Promise<{ events: SseEvent[]; comments: string[]; status: number }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs ?? 15_000);
  const events: SseEvent[] = [];
  const comments: string[] = [];
  // Surface B: `key` is a Bearer token and the stream is the logs route with follow=true.
  const b = opts.surface === 'b';
  const res = await fetch(
    `${opts.baseUrl ?? testEnv().url}${b ? `/v0/jobs/${jobId}/logs?follow=true` : `/api/compute/jobs/${jobId}/logs`}`,
    {
      headers: {
        ...(b ? { Authorization: `Bearer ${key}` } : credentialHeaders(key)),
        ...(opts.lastEventId ? { 'Last-Event-ID': opts.lastEventId } : {}),
      },
      signal: abort.signal,
    },
  );
  if (res.status !== 200) {
    clearTimeout(timer);
    return { events, comments, status: res.status };
  }
  try {
    for await (const frame of sseFrames(res.body)) {
      comments.push(...frame.comments);
      if (frame.data) {
        const e = { event: frame.event, id: frame.id, data: JSON.parse(frame.data) };
        events.push(e);
        opts.onEvent?.(e);
      }
      if (frame.event === 'end' || (opts.stopAfter && events.length >= opts.stopAfter)) {
        abort.abort();
        return { events, comments, status: 200 };
      }
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
  }
  return { events, comments, status: 200 };
}
