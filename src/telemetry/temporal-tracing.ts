import type { ClientInterceptors } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { Tracing } from './tracing';

/**
 * What the Temporal client adds when the process traces: the SDK's own client interceptor, so a
 * job's start, its Updates and its signals are spans of the job's trace (and carry its context
 * in their headers).
 *
 * The SDK's workflow interceptors are left out on purpose: wrapping the run's Update handlers in
 * spans changes the order of its commands, so a worker that turned tracing on or off could no
 * longer replay the runs already open (test/integration/job-workflow-replay.test.ts replays every
 * recorded history on the very bundle a traced worker runs). Without them an activity has no
 * trace context to join, so activities get no span either.
 */
export function temporalTracing(tracing: Tracing | undefined): ClientInterceptors {
  return tracing ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : {};
}
