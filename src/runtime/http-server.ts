import type http from 'node:http';

/** Listens, or fails with the reason (a port in use) instead of an unhandled 'error' event. */
export function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Takes no new connection and lets the requests under way finish, for at most `graceMs`, before
 * closing what is left. Node keeps a keep-alive connection open after its last answer (until its
 * keep-alive timeout), so each is closed as soon as it is idle.
 */
export async function closeServer(server: http.Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const idle = setInterval(() => server.closeIdleConnections(), 20);
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  server.closeIdleConnections();
  await closed;
  clearInterval(idle);
  clearTimeout(cut);
}
