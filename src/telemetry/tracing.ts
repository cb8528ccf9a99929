import * as otel from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

// One trace per job (docs/guides/tracing.md). Spans are exported with OTLP over HTTP to the
// operator's collector when OTEL_EXPORTER_OTLP_ENDPOINT is set; without it nothing is recorded
// and every helper here costs a check of a global.

export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL (its `/v1/traces` takes the spans). */
  endpoint?: string;
  /** OTEL_SERVICE_NAME, else the process's own name. */
  serviceName?: string;
  /** OTEL_TRACES_SAMPLER_ARG: the share of new traces recorded (0..1); a caller's decision is kept. */
  sampleRatio?: number;
}

export interface Tracing {
  /** Where ended spans queue for export (flushed when a service stops). */
  spanProcessor: SpanProcessor;
  /** Sends the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();
let installed: Tracing | undefined;

/** This process's tracing, when OTEL_EXPORTER_OTLP_ENDPOINT turned it on. */
export const tracing = (): Tracing | undefined => installed;

/**
 * Installs the process's tracer provider once (a process running the API and the worker shares
 * it); later calls return the first. Undefined when no endpoint is set.
 */
export function startTracing(settings: TracingSettings, processName: string): Tracing | undefined {
  if (installed || !settings.endpoint) return installed;
  const resource = new Resource({ 'service.name': settings.serviceName ?? processName });
  const exporter = new OTLPTraceExporter({ url: `${settings.endpoint.replace(/\/+$/, '')}/v1/traces` });
  // Batched: a span's end costs a push onto a buffer; a full buffer drops spans, never blocks a request.
  const spanProcessor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 500, maxQueueSize: 8192 });
  // A job's parts all follow its submit's decision: each later span's parent is that trace's.
  const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sampleRatio ?? 1) });
  const provider = new NodeTracerProvider({ resource, sampler, spanProcessors: [spanProcessor] });
  provider.register({ propagator });
  installed = { spanProcessor, shutdown: () => provider.shutdown() };
  return installed;
}

export const tracer = () => otel.trace.getTracer('compute');

/** The W3C `traceparent` of `ctx`'s span (the active one by default); undefined when nothing is traced. */
export function traceparentOf(ctx: otel.Context = otel.context.active()): string | undefined {
  if (!installed) return undefined;
  const carrier: Record<string, string> = {};
  propagator.inject(ctx, carrier, otel.defaultTextMapSetter);
  return carrier.traceparent;
}

/** The context a `traceparent` names, as a remote parent; the root context for a missing or malformed one. */
export function contextOf(traceparent: string | null | undefined): otel.Context {
  if (!traceparent) return otel.ROOT_CONTEXT;
  return propagator.extract(otel.ROOT_CONTEXT, { traceparent }, otel.defaultTextMapGetter);
}

/** The trace ID a `traceparent` carries (its second field), when it was recorded (sampled, flag 01). */
export function traceIdOf(traceparent: string | null | undefined): string | null {
  const [, traceId, , flags] = traceparent?.split('-') ?? [];
  return traceId && flags && (parseInt(flags, 16) & 1) === 1 ? traceId : null;
}

/**
 * Runs `fn` in a span named `name`, a child of `parent` (the active context by default), ended
 * when `fn` settles and marked as an error when it throws. Without tracing, `fn` runs as it is.
 */
export async function inSpan<T>(
  name: string,
  attributes: otel.Attributes,
  fn: (span?: otel.Span) => Promise<T>,
  parent?: otel.Context,
  links?: otel.Link[],
): Promise<T> {
  if (!installed) return fn();
  return tracer().startActiveSpan(name, { attributes, links }, parent ?? otel.context.active(), async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** A link to the active span, for a span whose parent is another trace (a job's hand-out from a poll). */
export function linkToActive(): otel.Link[] {
  const active = otel.trace.getSpan(otel.context.active())?.spanContext();
  return active && otel.isSpanContextValid(active) ? [{ context: active }] : [];
}
