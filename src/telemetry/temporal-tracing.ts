import type { ClientInterceptors } from '@temporalio/client';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { Tracing } from './tracing';

/** What the Temporal client and worker add when the process traces: the SDK's own interceptors. */
export interface TemporalTracing {
  client: ClientInterceptors;
  activity: ActivityInterceptorsFactory[];
  /** Bundled into the workflow code: the workflow's spans, and its context passed to activities. */
  workflowModules: string[];
  /** The workflow spans' way out of the sandbox. */
  sinks?: InjectedSinks<OpenTelemetrySinks>;
}

export function temporalTracing(tracing: Tracing | undefined): TemporalTracing {
  if (!tracing) return { client: {}, activity: [], workflowModules: [] };
  return {
    client: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
    activity: [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
    ],
    workflowModules: [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')],
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
