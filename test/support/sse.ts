import { testEnv } from './env';

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
  opts: { lastEventId?: string; stopAfter?: number; timeoutMs?: number } = {},
): Promise<{ events: SseEvent[]; comments: string[]; status: number }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs ?? 15_000);
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const res = await fetch(`${testEnv().url}/api/compute/jobs/${jobId}/logs`, {
    headers: { 'X-API-Key': key, ...(opts.lastEventId ? { 'Last-Event-ID': opts.lastEventId } : {}) },
    signal: abort.signal,
  });
  if (res.status !== 200) {
    clearTimeout(timer);
    return { events, comments, status: res.status };
  }
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let sep: number;
      while ((sep = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, sep);
        buffer = buffer.slice(sep + 2);
        const ev: SseEvent = { event: 'message', data: undefined };
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments.push(line.slice(1).trim());
          else if (line.startsWith('event: ')) ev.event = line.slice(7);
          else if (line.startsWith('id: ')) ev.id = line.slice(4);
          else if (line.startsWith('data: ')) ev.data = JSON.parse(line.slice(6));
        }
        if (ev.data !== undefined) events.push(ev);
        if (ev.event === 'end' || (opts.stopAfter && events.length >= opts.stopAfter)) {
          abort.abort();
          return { events, comments, status: 200 };
        }
      }
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
  }
  return { events, comments, status: 200 };
}
