export interface SseFrame {
  event: string;
  id?: string;
  /** The frame's data lines joined; empty for a comment-only frame (a keep-alive). */
  data: string;
  comments: string[];
}

/** Splits a text/event-stream body into frames as they arrive. */
export async function* sseFrames(body: ReadableStream<Uint8Array> | null): AsyncGenerator<SseFrame> {
  if (!body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const frame: SseFrame = { event: 'message', data: '', comments: [] };
      for (const line of buffer.slice(0, cut).split('\n')) {
        if (line.startsWith(':')) frame.comments.push(line.slice(1).trim());
        else if (line.startsWith('event: ')) frame.event = line.slice(7);
        else if (line.startsWith('id: ')) frame.id = line.slice(4);
        else if (line.startsWith('data: ')) frame.data += line.slice(6);
      }
      buffer = buffer.slice(cut + 2);
      yield frame;
    }
  }
}
