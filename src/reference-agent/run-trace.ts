import * as otel from '@opentelemetry/api';
import { contextOf, tracer, tracing, traceparentOf } from '../telemetry/tracing';

/** One attempt's part of its job's trace, on the agent. */
export interface JobRunTrace {
  /** What the job's process and the result carry: the run span's context, else the hand-out's. */
  traceparent?: string;
  end(exitCode: number, signal: NodeJS.Signals | null): void;
}

/**
 * The attempt's run span, a child of the hand-out the poll answer names, when this agent exports
 * traces (OTEL_EXPORTER_OTLP_ENDPOINT); otherwise the hand-out's context is passed on as it is,
 * so the result and the job's own tools still join the job's trace.
 */
export function traceJobRun(jobId: string, attempt: number, nodeId: string, handOut?: string): JobRunTrace {
  if (!tracing() || !handOut) return { traceparent: handOut, end: () => undefined };
  const span = tracer().startSpan(
    'job.run',
    { kind: otel.SpanKind.CONSUMER, attributes: { 'job.id': jobId, 'job.attempt': attempt, 'agent.id': nodeId } },
    contextOf(handOut),
  );
  return {
    traceparent: traceparentOf(otel.trace.setSpan(otel.ROOT_CONTEXT, span)),
    end(exitCode, signal) {
      span.setAttribute('process.exit.code', exitCode);
      if (signal) span.setAttribute('process.signal', signal);
      if (exitCode !== 0) span.setStatus({ code: otel.SpanStatusCode.ERROR, message: `exit ${exitCode}` });
      span.end();
    },
  };
}
