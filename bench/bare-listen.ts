import type http from 'node:http';

/**
 * How each bare server of the benches serves: on 127.0.0.1:`port`, keep-alive past a 30 s long
 * poll, `listening` on stdout once up; on SIGTERM it closes its connections, then `release`s what
 * it holds (pools, clients) and exits.
 */
export function listenBare(server: http.Server, port: number, release: () => Promise<unknown>): void {
  server.keepAliveTimeout = 65_000;
  server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
  process.on('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void release().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  });
}
