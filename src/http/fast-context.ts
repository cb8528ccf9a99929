import { type IncomingMessage, STATUS_CODES, type ServerResponse } from 'node:http';
import type { Context } from 'koa';

const split = (value: string, limit?: number) => value.split(',', limit).map((v) => v.trim());

/**
 * The part of a Koa context that Surface A's middleware and its fast operations read and write,
 * with Koa's own rules for each (headers, client address and origin behind a trusted proxy, the
 * status a body implies), and nothing else: no request and response objects of their own, no
 * delegation. The fast path runs the same middleware on it; test/integration/fast-path.test.ts
 * sends the same requests, good and bad, through both and compares the answers.
 */
export class FastContext {
  readonly state: Record<string | symbol, unknown> = {};
  readonly request: { body?: unknown } = {};
  readonly method: string;
  readonly path: string;
  respond = true;
  /** The route's pattern, as @koa/router leaves it for whoever counts requests. */
  readonly _matchedRoute: string;
  private explicitStatus = false;
  private bodyValue: unknown = undefined;
  private ipValue: string | undefined;
  /**
   * Response headers the chain set, name and value in turn, set on the response only as it is
   * written: a waiting poll's late answer holds this list, not Node's header map of arrays.
   */
  private outHeaders: string[] = [];

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private readonly proxy: boolean,
    route: string,
  ) {
    this.method = req.method ?? 'GET';
    this.path = route;
    this._matchedRoute = route;
    res.statusCode = 404;
  }

  /** Koa's `ctx.response`, for the one thing the envelope reads of it. */
  get response() {
    return { get: (field: string) => this.header(field) ?? '' };
  }

  get headers() {
    return this.req.headers;
  }

  get headerSent(): boolean {
    return this.res.headersSent;
  }

  /** A request header, '' when absent (Koa's `ctx.get`). */
  get(field: string): string {
    const name = field.toLowerCase();
    const h = this.req.headers;
    const value = name === 'referer' || name === 'referrer' ? (h.referrer ?? h.referer) : h[name];
    return (value as string | undefined) || '';
  }

  set(field: string, value: string): void {
    if (this.res.headersSent) return;
    const at = this.headerAt(field);
    if (at < 0) this.outHeaders.push(field, value);
    else this.outHeaders[at + 1] = value;
  }

  private header(field: string): string | undefined {
    const at = this.headerAt(field);
    return at < 0 ? undefined : this.outHeaders[at + 1];
  }

  private headerAt(field: string): number {
    const name = field.toLowerCase();
    const h = this.outHeaders;
    for (let i = 0; i < h.length; i += 2) if (h[i].toLowerCase() === name) return i;
    return -1;
  }

  /** The headers the chain set, for whoever writes the answer later (src/http/late-answer.ts); none are kept here. */
  takeHeaders(): string[] {
    // A copy of exactly their length: the list grew by pushes, with room to spare.
    const h = this.outHeaders.slice();
    this.outHeaders = [];
    return h;
  }

  get status(): number {
    return this.res.statusCode;
  }

  set status(code: number) {
    if (this.res.headersSent) return;
    this.explicitStatus = true;
    this.res.statusCode = code;
  }

  get body(): unknown {
    return this.bodyValue;
  }

  /** Objects only: the fast operations answer JSON and nothing else. */
  set body(value: unknown) {
    this.bodyValue = value;
    if (!this.explicitStatus) this.status = 200;
    if (this.header('Content-Type') === undefined) this.set('Content-Type', 'application/json; charset=utf-8');
  }

  get ip(): string {
    if (this.ipValue === undefined) {
      const forwarded = this.proxy ? this.get('X-Forwarded-For') : '';
      this.ipValue = (forwarded && split(forwarded)[0]) || this.req.socket.remoteAddress || '';
    }
    return this.ipValue;
  }

  get protocol(): string {
    if ((this.req.socket as { encrypted?: boolean }).encrypted) return 'https';
    if (!this.proxy) return 'http';
    const proto = this.get('X-Forwarded-Proto');
    return proto ? split(proto, 1)[0].toLowerCase() : 'http';
  }

  get host(): string {
    let host = (this.proxy && this.get('X-Forwarded-Host')) || this.get('Host');
    if (!host) return '';
    host = split(host, 1)[0];
    if (!host.includes('@')) return host;
    try {
      return new URL(`http://${host}`).host;
    } catch {
      return '';
    }
  }

  /** What Koa's respond() does with a JSON body, or, when the answer comes later, lets go of the headers. */
  finish(): void {
    if (!this.respond) return shedHeaders(this.req);
    const res = this.res;
    if (res.writableEnded || (res.socket && !res.socket.writable)) return void res.end();
    setHeaders(res, this.outHeaders);
    if (this.bodyValue === undefined) {
      const text = res.statusMessage || STATUS_CODES[res.statusCode] || String(res.statusCode);
      if (!res.headersSent) {
        res.setHeader('Content-Type', 'text/plain; charset=utf-8');
        res.setHeader('Content-Length', Buffer.byteLength(text));
      }
      return void res.end(text);
    }
    const json = JSON.stringify(this.bodyValue);
    if (!res.headersSent) res.setHeader('Content-Length', Buffer.byteLength(json));
    res.end(json);
  }

  /** The middleware's view: a Koa context. */
  asKoa(): Context {
    return this as unknown as Context;
  }
}

/** Headers as `[name, value, name, value, …]` onto a response not yet written. */
export function setHeaders(res: ServerResponse, headers: string[]): void {
  if (res.headersSent) return;
  for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i], headers[i + 1]);
}

const NO_HEADERS = Object.freeze({}) as IncomingMessage['headers'];
const NO_RAW_HEADERS = Object.freeze([]) as unknown as string[];

/**
 * A request answered later (a waiting poll) has been read and checked, and its chain has ended:
 * nothing reads its headers again (Node writes the response from the response's own). Held, they
 * are a fifth of what a waiting poll keeps, about 1.4 KiB of strings, arrays and the parsed map,
 * copied twice by young-generation collections over a 30 s wait (docs/performance.md, bench:fleet).
 */
function shedHeaders(req: IncomingMessage): void {
  req.headers = NO_HEADERS;
  req.rawHeaders = NO_RAW_HEADERS;
}
