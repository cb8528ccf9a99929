import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What every log line written on behalf of one piece of work carries: the HTTP request's ID in
 * the API, the workflow and job in the worker's activities. The logger reads it (src/logging/logger.ts), so
 * code deep below a handler logs it without being handed anything.
 */
export interface LogContext {
  requestId?: string;
  /** The trace the request's span is part of, when tracing is on (docs/guides/tracing.md). */
  traceId?: string;
  workflowId?: string;
  runId?: string;
  jobId?: string;
  activity?: string;
}

export const logContext = new AsyncLocalStorage<LogContext>();
