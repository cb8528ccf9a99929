import type { ServerResponse } from 'node:http';
import type { Context } from 'koa';
import type { Hangup, HangupListener } from '../shared/hangup';
import { setHeaders } from './fast-context';

/** What a request is answered, worked out by its surface's renderer. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** What a late answer's renderer knows of its request: no context is held while it waits. */
export interface LateRequest {
  path: string;
  requestId?: string;
}

/** A surface's rendering of an outcome: the payload, or the error (`failed`). */
export type RenderLate = (req: LateRequest, payload: unknown, failed?: { error: unknown }) => Answer;

const LATE = Symbol('answered later');

/** Responses whose client-gone signal has an object listening: onClientGone finds it by its response. */
const hangups = new WeakMap<ServerResponse, LateAnswer>();

function onClientGone(this: ServerResponse): void {
  hangups.get(this)?.hungUp();
}

/** Whoever counts a request, told its status. */
interface Counter {
  count(status: number): void;
}

/**
 * A request whose middleware chain may finish while its answer is still being worked out: once
 * `detach`ed from its context, it keeps the response and what its renderer and counter need, not
 * the context. A long poll that waits then holds its request and its wait, not every middleware's
 * suspended frame, closures and promises (most of a waiting poll's memory, see bench:fleet). It is
 * also the request's client-gone signal (a Hangup): an AbortController would do, but its
 * EventTarget (a shape of its own per instance) is most of a kilobyte held by every waiting poll.
 */
export class LateAnswer implements LateRequest, Hangup {
  readonly path: string;
  readonly requestId?: string;
  protected readonly res: ServerResponse;
  /** Set once detached: the chain's headers when its context did not set them on the response (a FastContext's). */
  private headers?: string[];
  /** The status written, once it is. */
  private status?: number;
  /** Whoever counts requests, told the status once it is written. */
  private counter?: Counter;
  /** Its one object listener (see addEventListener). */
  private watcher?: { handleEvent(): void };

  constructor(
    ctx: Context,
    private readonly render: RenderLate,
  ) {
    this.res = ctx.res;
    this.path = ctx.path;
    this.requestId = ctx.state.requestId as string | undefined;
  }

  /** Whether the chain has let go of the request (detach): its answer is this one's to write. */
  get detached(): boolean {
    return this.headers !== undefined;
  }

  /**
   * Lets the request's middleware chain finish without answering: headers the chain set (request
   * ID, rate-limit headers) go out with the answer written here, and requestContext counts the
   * request with its status then.
   */
  protected detach(ctx: Context): void {
    ctx.respond = false;
    // Read by the middleware the chain unwinds through: an answer is on its way, not a missing route.
    ctx.status = 200;
    (ctx.state as Record<symbol, unknown>)[LATE] = this;
    this.headers = (ctx as { takeHeaders?: () => string[] }).takeHeaders?.() ?? [];
  }

  send(payload: unknown): void {
    this.write(this.render(this, payload));
  }

  fail(error: unknown): void {
    this.write(this.render(this, undefined, { error }));
  }

  /** See whenAnsweredLater. */
  counted(counter: Counter): void {
    if (this.status !== undefined) counter.count(this.status);
    else this.counter = counter;
  }

  get aborted(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  // 'close' comes once; `once` would add a wrapper and its state to every waiting poll. An object
  // listener (a waiting poll's) is heard through one function for every response, no closure each.
  addEventListener(_type: 'abort', listener: HangupListener): void {
    if (typeof listener === 'function') return void this.res.on('close', listener);
    this.watcher = listener;
    hangups.set(this.res, this);
    this.res.on('close', onClientGone);
  }

  removeEventListener(_type: 'abort', listener: HangupListener): void {
    if (typeof listener === 'function') return void this.res.off('close', listener);
    if (this.watcher !== listener) return;
    this.watcher = undefined;
    this.res.off('close', onClientGone);
  }

  /** The client went away while an object listened (see addEventListener). */
  hungUp(): void {
    this.watcher?.handleEvent();
  }

  private write(answer: Answer): void {
    if (this.headers) setHeaders(this.res, this.headers);
    write(this.res, answer);
    this.status = answer.status;
    const counter = this.counter;
    this.counter = undefined;
    counter?.count(answer.status);
  }
}

/**
 * For whoever counts requests: `counter` is told the status of a request answered later once it is
 * written (at once if it is already); false for a request the chain answered.
 */
export function whenAnsweredLater(ctx: Context, counter: Counter): boolean {
  const late = (ctx.state as Record<symbol, unknown>)[LATE] as LateAnswer | undefined;
  if (!late) return false;
  late.counted(counter);
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
