// Server-sent events as the HTML standard parses them, fed the stream's text in whatever chunks it
// arrives: a frame cut anywhere (even between \r and \n) waits for its end. Pure, so it is
// unit-tested; follow-log.ts feeds it from fetch, which (unlike EventSource) may send the
// workspace header and a Last-Event-ID of its own choosing.

export interface SseEvent {
  event: string;
  data: string;
  /** The stream's last event ID as of this event (the `id:` of this one or an earlier one). */
  id?: string;
}

export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private lastId?: string;

  /** The events completed by `chunk`. */
  push(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const events: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      // A lone \r at the end may be the first half of \r\n.
      if (!m || (m[0] === '\r' && m.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const e = this.line(line);
      if (e) events.push(e);
    }
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const e = this.data.length
      ? { event: this.event || 'message', data: this.data.join('\n'), id: this.lastId }
      : undefined;
    this.event = '';
    this.data = [];
    return e;
  }
}
