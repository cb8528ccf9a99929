import net from 'node:net';

// Below Linux's ephemeral range (32768-60999): a port the OS hands out for `listen(0)` (the
// Temporal dev server's internal services take theirs that way) is never one we picked, so a
// server we start later does not find its port taken.
const PICK_FROM = 20_000;
const PICK_TO = 32_000;
const handedOut = new Set<number>();

function bindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port free now, never handed out before by this process. Racy by nature: use it promptly. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let tries = 0; tries < 1000; tries++) {
    const port = PICK_FROM + Math.floor(Math.random() * (PICK_TO - PICK_FROM));
    if (handedOut.has(port) || !(await bindable(port, host))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${PICK_FROM} and ${PICK_TO}`);
}

function tryConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Resolves once something accepts TCP connections on host:port; rejects after timeoutMs. */
export async function waitForPort(host: string, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await tryConnect(host, port)) return;
    if (Date.now() > deadline) throw new Error(`Nothing listens on ${host}:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Throws when something already accepts connections on host:port. A server we start there would
 * exit, while a readiness probe could be answered by the other one and report success.
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (await tryConnect(host, port)) throw new Error(`${host}:${port} is already in use`);
}
