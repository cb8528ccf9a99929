import { type Problem, headersFor, problemFrom, sessionEnded } from './api';
import { SseParser } from './sse';
import type { JobState } from './types';

// A job's log, followed live over SSE (GET /v0/jobs/{id}/logs?follow=true) and resumed after any
// cut with Last-Event-ID, so each line arrives once: the server sends only what follows it.

export interface LogLine {
  seq: number;
  stream: 'stdout' | 'stderr' | 'system';
  line: string;
  ts: string;
}

export type FollowStatus = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed';

export interface FollowHandlers {
  line(l: LogLine): void;
  end(e: { state: JobState; exitCode: number | null }): void;
  status(s: FollowStatus, problem?: Problem): void;
}

/** Silence this long (the server sends a comment every SSE_KEEPALIVE_MS, 15 s) means a dead connection. */
const SILENCE_MS = 45_000;
const MAX_DELAY_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Follows until the job's `end`, a refusal, or `stop()`. */
export function followLog(jobId: string, on: FollowHandlers): { stop(): void } {
  let stopped = false;
  let controller: AbortController | undefined;
  let last: string | undefined;
  let delay = 500;

  /** Handles one event; true once the log is over. */
  const handle = (event: string, data: string): boolean => {
    if (event === 'log') on.line(JSON.parse(data) as LogLine);
    else if (event === 'log.truncated') {
      const t = JSON.parse(data) as { seq: number; droppedLines: number; droppedBytes: number; ts: string };
      on.line({
        seq: t.seq,
        stream: 'system',
        line: `[${t.droppedLines} lines (${t.droppedBytes} bytes) dropped past the log limit]`,
        ts: t.ts,
      });
    } else if (event === 'end') {
      on.end(JSON.parse(data) as { state: JobState; exitCode: number | null });
      return true;
    }
    return false;
  };

  /** One connection: true when the log is over (or following must stop), false to reconnect. */
  const connect = async (): Promise<boolean> => {
    controller = new AbortController();
    let watchdog = setTimeout(() => controller?.abort(), SILENCE_MS);
    try {
      const res = await fetch(`/v0/jobs/${encodeURIComponent(jobId)}/logs?follow=true`, {
        headers: headersFor('GET', {
          headers: { Accept: 'text/event-stream', ...(last ? { 'Last-Event-ID': last } : {}) },
        }),
        credentials: 'same-origin',
        cache: 'no-store',
        signal: controller.signal,
      });
      if (!res.ok) {
        if (sessionEnded(res, {})) return true;
        const problem = await problemFrom(res);
        const retry = res.status === 429 || res.status >= 500;
        on.status(retry ? 'reconnecting' : 'failed', problem);
        if (retry) delay = Math.max(delay, Number(res.headers.get('Retry-After') ?? 0) * 1000);
        return !retry;
      }
      on.status('live');
      delay = 500;
      const parser = new SseParser();
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return false;
        clearTimeout(watchdog);
        watchdog = setTimeout(() => controller?.abort(), SILENCE_MS);
        for (const e of parser.push(value)) {
          last = e.id ?? last;
          if (handle(e.event, e.data)) return true;
        }
      }
    } catch {
      return stopped;
    } finally {
      clearTimeout(watchdog);
    }
  };

  void (async () => {
    on.status('connecting');
    while (!stopped) {
      if (await connect()) break;
      if (stopped) break;
      on.status('reconnecting');
      await sleep(delay);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  })();

  return {
    stop() {
      stopped = true;
      controller?.abort();
    },
  };
}
