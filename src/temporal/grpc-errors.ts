import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../shared/errors';
import { REFUSAL } from '../../workflows/definitions';

// Temporal's errors in the service's terms: a refusal of the job's run is the job's error, a run
// that has closed sends the caller to the read model, and a server out of reach is 503.

/** The job's workflow has closed (or never started): the caller falls back to the read model. */
export class WorkflowClosedError extends Error {}

/**
 * A start failed in a way that leaves its outcome unknown (a deadline, a dropped connection, an
 * internal error): the workflow may exist. Only the reconciler, later, can tell.
 */
export class StartOutcomeUnknownError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(
      'dependency.unavailable',
      'The workflow service did not confirm the submit; it is being settled',
      undefined,
      retryAfterSeconds,
    );
  }
}

// gRPC codes after which the server certainly did not create the workflow.
export const NOT_APPLIED = new Set([
  3 /* INVALID_ARGUMENT */, 5, 6, 7 /* PERMISSION_DENIED */, 8 /* RESOURCE_EXHAUSTED */, 9, 11, 12, 16,
]);
// gRPC's own account of a call that never left this process: no connection could be made, or
// the deadline passed before one was (grpc-js names the stage it was waiting in; a sent call
// names its remote_addr).
const NEVER_SENT =
  /Connection refused|ECONNREFUSED|tcp connect error|waiting for (metadata filters|LB pick|name resolution)/i;
export const neverSent = (err: unknown): boolean => {
  const text = wordsOf(err);
  return NEVER_SENT.test(text) && !/remote_addr=/.test(text);
};
/**
 * An error's words with its cause's: the Temporal client's ServiceError says only what failed
 * ("Workflow Update failed"); the server's or gRPC's words are its cause's message and details.
 */
const wordsOf = (err: unknown): string => {
  const cause = (err as { cause?: { details?: unknown } })?.cause;
  return `${(err as Error)?.message ?? ''} ${String(cause ?? '')} ${String(cause?.details ?? '')}`;
};
export const grpcCodeOf = (err: unknown): number | undefined => {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof e?.code === 'number' ? e.code : e?.cause?.code;
  return typeof code === 'number' ? code : undefined;
};

const FAILED_PRECONDITION = 9;
/**
 * The server's WorkflowNotReady (FAILED_PRECONDITION) for an Update whose workflow task it failed:
 * nothing of it was applied. Its words are the cause's (see wordsOf).
 */
export const abortedWithItsTask = (err: unknown): boolean =>
  err instanceof ServiceError &&
  grpcCodeOf(err) === FAILED_PRECONDITION &&
  /unexpected workflow task failure/i.test(wordsOf(err));

/**
 * Rethrows `err` as the service's error. `unavailable` makes the 503; `unreachable` is told when
 * the server proved out of reach (the client then fails fast for a while).
 */
export function translateError(
  err: unknown,
  unavailable: (cause?: unknown) => AppError,
  unreachable: () => void,
): never {
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    const type = err.cause.type;
    if (type === REFUSAL.invalidState || type === REFUSAL.notAssigned) throw new AppError(type, err.cause.message);
  }
  if (err instanceof WorkflowNotFoundError) throw new WorkflowClosedError(err.message);
  if (err instanceof ServiceError && /NOT_FOUND|completed/i.test(err.message))
    throw new WorkflowClosedError(err.message);
  // An Update whose call ran out of its deadline (the SDK's own error, not a ServiceError): the
  // server did not answer in time, its outcome unknown. A 503 like any call the server let lapse.
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) throw unavailable(err);
  if (err instanceof ServiceError || isTransportError(err)) {
    if (isTransportError(err) || isTransportError((err as Error).cause)) unreachable();
    throw unavailable(err);
  }
  throw err;
}

export function isTransportError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  // gRPC UNAVAILABLE, DEADLINE_EXCEEDED and connection failures.
  return code === 14 || code === 4 || (err instanceof Error && /ECONNREFUSED|transport|connect/i.test(err.message));
}
