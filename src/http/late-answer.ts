import type { ServerResponse } from 'node:http';
import type { Context } from 'koa';
import type { Hangup } from '../shared/hangup';

/** What a request is answered, worked out by its surface's renderer. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** A surface's rendering of an outcome: the payload, or the error (`failed`). */
export type RenderLate = (ctx: Context, payload: unknown, failed?: { error: unknown }) => Answer;

const LATE = Symbol('answered later');
interface Late {
  status?: number;
  count?: (status: number) => void;
}

/**
 * Lets a request's middleware chain finish while its answer is still being worked out; the
 * function returned writes it, rendered by `render`. A long poll that waits then holds its
 * request and its wait, not every middleware's suspended frame, closures and promises (most of a
 * waiting poll's memory, see bench:fleet). Headers the chain set (request ID, rate-limit headers)
 * are on the response already; requestContext counts the request with the status written here.
 */
export function answerLater(ctx: Context, render: RenderLate): (payload: unknown, failed?: { error: unknown }) => void {
  ctx.respond = false;
  // Read by the middleware the chain unwinds through: an answer is on its way, not a missing route.
  ctx.status = 200;
  const late: Late = {};
  (ctx.state as Record<symbol, unknown>)[LATE] = late;
  return (payload, failed) => {
    const answer = render(ctx, payload, failed);
    write(ctx.res, answer);
    late.status = answer.status;
    late.count?.(answer.status);
  };
}

/**
 * For whoever counts requests: `count` gets the status of a request answered later once it is
 * written (at once if it is already); false for a request the chain answered.
 */
export function whenAnsweredLater(ctx: Context, count: (status: number) => void): boolean {
  const late = (ctx.state as Record<symbol, unknown>)[LATE] as Late | undefined;
  if (!late) return false;
  if (late.status !== undefined) count(late.status);
  else late.count = count;
  return true;
}

function write(res: ServerResponse, a: Answer): void {
  // A client that went away has nobody to read it.
  if (res.headersSent || res.destroyed) return;
  const json = JSON.stringify(a.body);
  res.statusCode = a.status;
  for (const [name, value] of Object.entries(a.headers ?? {})) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

/**
 * Fires when the client of `res` goes away before its answer is written. An AbortController
 * would do, but its EventTarget (a shape of its own per instance) is most of a kilobyte, held by
 * every waiting poll; so is an object literal with a getter (a dictionary), hence a class.
 */
export class ClientGone implements Hangup {
  constructor(private readonly res: ServerResponse) {}
  get aborted(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }
  addEventListener(_type: 'abort', listener: () => void): void {
    this.res.once('close', listener);
  }
  removeEventListener(_type: 'abort', listener: () => void): void {
    this.res.off('close', listener);
  }
}
