import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  url: string;
  /** Requests each backend answered. */
  answered: number[];
  close(): Promise<void>;
}

/**
 * A round-robin HTTP load balancer in front of several API instances, as a deployment puts one
 * before its replicas (nginx in docker-compose.yml; this one in `npm run stack:prod` and the
 * tests). A backend that refuses the connection (it is gone) is skipped for the next; when none
 * takes it the answer is 503 with Retry-After, as for any outage of ours. A request cut off
 * mid-way is answered 502, as a real balancer does, since it may already have been carried out.
 */
export async function startBalancer(backends: string[], listen: { port?: number } = {}): Promise<Balancer> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const answered = backends.map(() => 0);
  let next = 0;
  const forward = (i: number, req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) =>
    new Promise<void>((resolve, reject) => {
      const target = new URL(backends[i]);
      const upstream = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
        (answer) => {
          answered[i]++;
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
          answer.on('end', resolve);
          answer.on('error', () => res.destroy());
        },
      );
      upstream.on('error', reject);
      // A client that gives up (a long poll abandoned) abandons the upstream request too.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(body);
    });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let refused = 0;
    for (let tried = 0; tried < backends.length; tried++) {
      const i = next++ % backends.length;
      try {
        await forward(i, req, body, res);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
          refused++;
          continue;
        }
        break;
      }
    }
    if (res.headersSent) res.destroy();
    else {
      const none = refused === backends.length;
      res
        .writeHead(none ? 503 : 502, { 'Content-Type': 'application/json', ...(none && { 'Retry-After': '1' }) })
        .end(JSON.stringify({ status: 'ERROR', code: 'dependency.unavailable', message: 'no backend answered' }));
    }
  });
  await new Promise<void>((resolve) => server.listen(listen.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answered,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
