import * as otel from '@opentelemetry/api';
import type { Context } from 'koa';
import { contextOf, tracer, tracing } from '../telemetry/tracing';

/** The two surfaces are traced; the portal's pages, probes and scrapes are not. */
const TRACED = /^\/(api|v0)\//;
/**
 * An agent's routine calls (long polls, heartbeats, log appends) and log streams make no span of
 * their own: an idle fleet would fill the backend with empty traces. A poll that hands a job out
 * records the hand-out in the job's trace instead (src/jobs/dispatch.ts).
 */
const ROUTINE = /\/(poll|heartbeat|logs)$/;

export interface RequestSpan {
  traceId: string;
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Names the span by its route pattern (known only after routing) and ends it. */
  end(route: string, status: number): void;
}

/**
 * The request's server span, a child of the caller's `traceparent` when it sends one (an agent's
 * result carries its run's). Undefined when tracing is off or the request is routine.
 */
export function requestSpan(ctx: Context, requestId: string): RequestSpan | undefined {
  if (!tracing() || !TRACED.test(ctx.path) || ROUTINE.test(ctx.path)) return undefined;
  const parent = contextOf(ctx.get('traceparent'));
  const span = tracer().startSpan(
    `${ctx.method} ${ctx.path}`,
    {
      kind: otel.SpanKind.SERVER,
      attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path, 'request.id': requestId },
    },
    parent,
  );
  const active = otel.trace.setSpan(parent, span);
  return {
    traceId: span.spanContext().traceId,
    run: (fn) => otel.context.with(active, fn),
    end(route, status) {
      span.updateName(`${ctx.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
      if (status >= 500) span.setStatus({ code: otel.SpanStatusCode.ERROR });
      span.end();
    },
  };
}
