import net from 'node:net';

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
  /** Bytes were dropped while black-holed: the protocol on this connection is lost. */
  swallowed: boolean;
}

export interface TcpProxy {
  /** `127.0.0.1:<port>`: where clients reach the target through the proxy. */
  address: string;
  /** From now on: accept connections, forward nothing either way, never close (a hung server). */
  blackhole(): void;
  /** Forward again; connections that lost bytes meanwhile are closed, as a broken link would be. */
  resume(): void;
  /** Closes every open connection at once, as a dropped link would; new ones pass as before. */
  cut(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a real server (Temporal, MinIO) that a test can switch to "accept and
 * never answer". Connections opened earlier (pooled keep-alive, HTTP/2) freeze too, so a client
 * cannot slip past the hang on a connection it already holds.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let hung = false;
  const pairs = new Set<Pair>();
  const drop = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream?.destroy();
    pairs.delete(pair);
  };
  // One direction of a pair: while black-holed the bytes vanish, else they pass with backpressure.
  const forward = (pair: Pair, from: net.Socket, to: () => net.Socket | undefined) =>
    from.on('data', (chunk: Buffer) => {
      const dest = to();
      if (hung || pair.swallowed || !dest) {
        pair.swallowed = true;
        return;
      }
      if (!dest.write(chunk)) {
        from.pause();
        dest.once('drain', () => from.resume());
      }
    });
  const server = net.createServer((client) => {
    const pair: Pair = { client, swallowed: false };
    pairs.add(pair);
    client.on('error', () => drop(pair));
    client.on('close', () => drop(pair));
    forward(pair, client, () => pair.upstream);
    // A connection accepted while black-holed gets no upstream: it is dropped on resume.
    if (hung) return;
    const upstream = net.connect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on('error', () => drop(pair));
    // A server closing a connection while black-holed would be news the client must not get.
    upstream.on('close', () => (hung ? undefined : drop(pair)));
    forward(pair, upstream, () => pair.client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    blackhole() {
      hung = true;
    },
    resume() {
      hung = false;
      for (const pair of [...pairs]) if (pair.swallowed || !pair.upstream) drop(pair);
    },
    cut() {
      for (const pair of [...pairs]) drop(pair);
    },
    async close() {
      for (const pair of [...pairs]) drop(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
