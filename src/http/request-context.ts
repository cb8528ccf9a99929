import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { logContext } from '../logging/context';
import { whenAnsweredLater } from './late-answer';
import { httpDuration, httpRequests, rateLimitRefusals } from '../metrics/registry';
import { requestSpan } from './request-span';

/** An ID a caller may choose: printable, no spaces, short enough to log. Anything else is replaced. */
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The outermost middleware: one request ID per request (the caller's X-Request-Id when usable,
 * else a new one), echoed in the answer and carried by every log line written for the request;
 * and the request counted by route pattern, so a scanner's random paths make one series, not many.
 */
export function requestContext(): Middleware {
  return async (ctx, next) => {
    const given = ctx.get('X-Request-Id');
    const requestId = CALLER_REQUEST_ID.test(given) ? given : newRequestId();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    let status = 0;
    const span = requestSpan(ctx, requestId);
    try {
      await (span
        ? span.run(() => logContext.run({ requestId, traceId: span.traceId }, next))
        : logContext.run({ requestId }, next));
      status = ctx.status;
    } catch (err) {
      status = (err as { status?: number }).status ?? 500;
      throw err;
    } finally {
      const counter = new RequestCount(
        (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched',
        ctx.method,
        started,
        span,
      );
      // A request answered after its chain (a waiting poll) is counted once it is answered.
      if (!whenAnsweredLater(ctx, counter)) counter.count(status);
    }
  };
}

/**
 * Counts a request once its status is known: a request answered later (a waiting poll) holds
 * these few values until then, not the middleware's frame.
 */
class RequestCount {
  constructor(
    private readonly route: string,
    private readonly method: string,
    private readonly started: bigint,
    private readonly span: ReturnType<typeof requestSpan>,
  ) {}

  count(status: number): void {
    const { route } = this;
    const labels = { route, method: this.method, status: String(status) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, Number(process.hrtime.bigint() - this.started) / 1e9);
    if (status === 429) rateLimitRefusals.inc({ route });
    this.span?.end(route, status);
  }
}

/**
 * A new UUID as one flat string: Node builds randomUUID()'s by concatenation, a tree of about
 * twenty strings (near 0.5 KiB) until something flattens it, and a waiting poll holds its ID in
 * its log context and its late answer for up to 30 s. Reading a character flattens it (66 bytes).
 */
function newRequestId(): string {
  const id = randomUUID();
  id.charCodeAt(0);
  return id;
}
