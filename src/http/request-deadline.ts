import { type IncomingMessage, type Server, ServerResponse } from 'node:http';

export interface RequestDeadlines {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Requests exempt from the whole-request deadline (uploads, which keep an idle timeout of their own). */
  exempt: (req: IncomingMessage) => boolean;
}

/** How long a connection answered early still drains the body, so a client still sending reads the answer rather than a reset. */
const LINGER_MS = 2000;

/**
 * Bounds how long a client may take to send a request, so slow or idle clients cannot hold
 * sockets and memory. Node checks the headers deadline; the whole-request deadline is ours, since
 * Node's own `requestTimeout` would also cut a long upload that is still moving.
 * A request still incomplete at its deadline is answered 408 (when nothing was sent yet) and its
 * connection closed. One answered before its body arrived is closed sooner, exempt or not.
 */
export function applyRequestDeadlines(server: Server, o: RequestDeadlines): void {
  server.headersTimeout = o.headersTimeoutMs;
  server.requestTimeout = 0;
  const closeIfEarly = closeIfAnsweredEarly(Math.min(LINGER_MS, o.requestTimeoutMs));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // One function for every response, not a closure each: a waiting poll holds its response.
    res.writeHead = closeIfEarly;
    if (req.complete || o.exempt(req)) return;
    const timer = setTimeout(() => {
      socket.off('close', clear);
      if (req.complete) return;
      if (!res.headersSent) {
        res.writeHead(408, { 'Content-Type': 'application/json', Connection: 'close' });
        res.end(
          JSON.stringify({
            status: 'ERROR',
            code: 'request.invalid',
            message: `The request was not received within ${o.requestTimeoutMs} ms`,
          }),
        );
      }
      socket.destroySoon();
      setTimeout(() => socket.destroy(), 1000).unref();
    }, o.requestTimeoutMs);
    timer.unref();
    const socket = req.socket;
    const clear = () => {
      clearTimeout(timer);
      socket.off('close', clear);
    };
    req.once('end', clear);
    socket.once('close', clear);
  });
}

/**
 * An answer given before the request's body has arrived (401, 403, 404, 413, 429...) closes the
 * connection. Kept alive, Node would go on reading the unsent body for the next request, so a
 * refused client could hold its socket as long as it trickles bytes, and forever on an upload
 * route, which the deadline exempts. `req.complete` is the parser's: a refusal sent in the tick
 * its headers arrived counts as early even if a short body came with them, which costs that
 * client a reconnect, nothing more.
 */
function closeIfAnsweredEarly(lingerMs: number): ServerResponse['writeHead'] {
  const writeHead = ServerResponse.prototype.writeHead;
  return function (this: ServerResponse, ...args: unknown[]) {
    const req = this.req;
    if (!req.complete && !this.headersSent) {
      this.setHeader('Connection', 'close');
      // With that header Node ends the socket once the answer is flushed (destroySoon), then
      // closes it at once: a client still sending would get a reset, maybe before reading the
      // answer. Instead the rest of the body is drained until the client closes, or lingerMs.
      const socket = req.socket;
      socket.destroySoon = () => {
        socket.end();
        setTimeout(() => socket.destroy(), lingerMs).unref();
      };
    }
    return Reflect.apply(writeHead, this, args) as ServerResponse;
  } as ServerResponse['writeHead'];
}
