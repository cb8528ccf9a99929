import type { IncomingMessage, ServerResponse } from 'node:http';
import bourne from '@hapi/bourne';
import type { Context, Middleware } from 'koa';
import compose from 'koa-compose';
import { httpFastRequests } from '../metrics/registry';
import { AppError } from '../shared/errors';
import { FastContext } from './fast-context';

/** What a surface hands the fast path: its middleware up to the body, and its fast operations' route functions by path. */
export interface FastOperations {
  chain: Middleware[];
  operations: Map<string, Middleware>;
}

/** `(req, res) => handled`: false leaves the request to Koa, untouched. */
export type FastHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

// The media type Surface A's body parser reads as JSON, in the one spelling agents send; any
// other (a charset named, another JSON type) goes through the framework as before.
const JSON_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
const LENGTH = /^\d{1,10}$/;
// co-body's strict mode: a body is an object or an array.
const STRICT_JSON = /^[\x20\x09\x0a\x0d]*(\[|\{)/;

/**
 * The agent protocol's calls and `jobs/retrieve` without the framework's layers: the same
 * middleware (request ID and metrics, the envelope, credential, audit of refusals, workspace,
 * budget) and the same operation run on a FastContext in one flat chain, with no routers to walk,
 * no Koa request and response objects, and the body read without the parser's stack. A request
 * the fast path could answer differently is left to Koa: any method, path or query string other
 * than an operation's exact one, a credential other than X-API-Key, a body that is not plain
 * `application/json` of a declared length within the limit, or an encoded one.
 */
export function fastPath(o: {
  /** The outer app's middleware before the surface's (the request context). */
  before: Middleware[];
  surface: FastOperations;
  proxy: boolean;
  bodyBytes: number;
  /** What the app does with an error that escapes its middleware (Koa's 'error' event). */
  onError: (err: NodeJS.ErrnoException) => void;
}): FastHandler {
  const readBody: Middleware = async (ctx, next) => {
    ctx.request.body = await readJson(ctx.req);
    return next();
  };
  const routes = new Map<string, { path: string; run: compose.ComposedMiddleware<Context>; taken: { inc(): void } }>();
  for (const [path, operation] of o.surface.operations)
    routes.set(path, {
      path,
      run: compose([...o.before, ...o.surface.chain, readBody, operation]),
      taken: httpFastRequests.labels({ route: path }),
    });

  return (req, res) => {
    if (req.method !== 'POST') return false;
    const url = req.url ?? '';
    const route = routes.get(url);
    if (!route || !takes(req, o.bodyBytes)) return false;
    route.taken.inc();
    // The route's own string, equal to the URL: what a waiting poll keeps is not a copy per request.
    const ctx = new FastContext(req, res, o.proxy, route.path);
    route.run(ctx.asKoa()).then(
      () => ctx.finish(),
      (err: NodeJS.ErrnoException) => {
        o.onError(err);
        escaped(res);
      },
    );
    return true;
  };
}

function takes(req: IncomingMessage, bodyBytes: number): boolean {
  const h = req.headers;
  const key = h['x-api-key'];
  if (typeof key !== 'string' || key === '') return false;
  const type = h['content-type'];
  if (type === undefined || !JSON_TYPE.test(type)) return false;
  if (h['content-encoding'] !== undefined || h['transfer-encoding'] !== undefined) return false;
  const length = h['content-length'];
  return length !== undefined && LENGTH.test(length) && Number(length) <= bodyBytes;
}

/** The body as co-body reads it for the surfaces (UTF-8, a leading BOM dropped, strict, no prototype keys). */
function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onAborted);
      req.off('close', onAborted);
    };
    const onData = (chunk: Buffer) => chunks.push(chunk);
    const onAborted = () => {
      cleanup();
      reject(new AppError('request.invalid', 'request aborted'));
    };
    const onEnd = () => {
      cleanup();
      let text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (!text) return resolve({});
      try {
        if (!STRICT_JSON.test(text)) throw new SyntaxError('invalid JSON, only supports object and array');
        resolve(bourne.parse(text, { protoAction: 'error' }));
      } catch (err) {
        reject(Object.assign(err as Error, { status: 400 }));
      }
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onAborted);
    // Closed before its end: nothing more will come (an 'end' comes before 'close').
    req.on('close', onAborted);
  });
}

/** What escapes the chain (the envelope catches everything below it) is answered Koa's plain 500. */
function escaped(res: ServerResponse): void {
  if (res.headersSent || res.writableEnded) return;
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  const text = 'Internal Server Error';
  res.statusCode = 500;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
