import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from '../../src/webhooks/send';
import type { Resolver } from '../../src/webhooks/target-guard';

// What the SSRF guard's tests share (CONTRACT §7): the address classes, resolvers that answer what
// a test says (so a "public" name can be made to point anywhere), and a real receiver on 127.0.0.1.

export const STRICT = { allowPrivate: false };
export const DEV = { allowPrivate: true };

export const REFUSED = [
  '127.0.0.1',
  '10.1.2.3',
  '172.16.0.1',
  '192.168.1.1',
  '169.254.1.1',
  '100.64.0.1',
  '224.0.0.1',
  '0.0.0.0',
  '255.255.255.255',
  '::1',
  '::',
  'fc00::1',
  'fd12::1',
  'fe80::1',
  'ff02::1',
  '::ffff:127.0.0.1',
  '::ffff:10.0.0.1',
];
export const PUBLIC = ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:c5fb'];
export const METADATA = [
  '169.254.169.254',
  '::ffff:169.254.169.254',
  '::ffff:a9fe:a9fe',
  'fd00:ec2::254',
  'fd00:0ec2:0:0:0:0:0:0254',
  '64:ff9b::a9fe:a9fe',
  '2002:a9fe:a9fe::1',
];

export const literalUrl = (address: string, port = 80) =>
  `http://${address.includes(':') ? `[${address}]` : address}:${port}/hook`;

/** A resolver for literal-host checks: being called at all is the failure. */
export const noLookup: Resolver = async (host) => assert.fail(`resolver called for ${host}`);
export const answering =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

export interface Hit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

/** A local receiver that counts connections as well as requests: "nothing reached it" means no TCP at all. */
export class Receiver {
  connections = 0;
  hits: Hit[] = [];
  port = 0;
  private server: http.Server;

  constructor(
    answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) =>
      res.writeHead(200).end('thanks'),
  ) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.hits.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          rawHeaders: req.rawHeaders,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        answer(req, res);
      });
    });
    this.server.on('connection', () => this.connections++);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export const post = (url: string, extra: Partial<Parameters<typeof postWebhook>[0]> = {}) =>
  postWebhook({
    url,
    headers: {},
    body: '{"id":"evt_1"}',
    timeoutMs: 5_000,
    bodyLimitBytes: 64 * 1024,
    policy: STRICT,
    ...extra,
  });
