import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface RequestDeadlines {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Requests exempt from the whole-request deadline (uploads, which keep an idle timeout of their own). */
  exempt: (req: IncomingMessage) => boolean;
}

/**
 * Bounds how long a client may take to send a request, so slow or idle clients cannot hold
 * sockets and memory. Node checks the headers deadline; the whole-request deadline is ours, since
 * Node's own `requestTimeout` would also cut a long upload that is still moving.
 * A request still incomplete at its deadline is answered 408 (when nothing was sent yet) and its
 * connection closed, whether or not a handler already answered it early (401, 413).
 */
export function applyRequestDeadlines(server: Server, o: RequestDeadlines): void {
  server.headersTimeout = o.headersTimeoutMs;
  server.requestTimeout = 0;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.complete || o.exempt(req)) return;
    const timer = setTimeout(() => {
      socket.off('close', clear);
      if (req.complete) return;
      if (!res.headersSent) {
        res.writeHead(408, { 'Content-Type': 'application/json', Connection: 'close' });
        res.end(JSON.stringify({ status: 'ERROR', code: 'request.invalid', message: `The request was not received within ${o.requestTimeoutMs} ms` }));
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
