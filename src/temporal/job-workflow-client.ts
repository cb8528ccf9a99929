import {
  type Client,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../shared/errors';
import {
  type AssignInput,
  type JobSnapshot,
  type JobWorkflowInput,
  type ResultInput,
  REFUSAL,
  assignUpdate,
  cancelUpdate,
  recheckAgentSignal,
  resultUpdate,
  withdrawLeaseSignal,
} from '../../workflows/definitions';
import { JobStateKey, JobTypeKey, LabelsKey, WorkspaceIdKey } from '../../workflows/search-attributes';

export const workflowIdOf = (jobId: string) => `job-${jobId}`;

/** The job's workflow has closed (or never started): the caller falls back to the read model. */
export class WorkflowClosedError extends Error {}

/**
 * A start failed in a way that leaves its outcome unknown (a deadline, a dropped connection, an
 * internal error): the workflow may exist. Only the reconciler, later, can tell.
 */
export class StartOutcomeUnknownError extends AppError {
  constructor(retryAfterSeconds: number) {
    super('dependency.unavailable', 'The workflow service did not confirm the submit; it is being settled', undefined, retryAfterSeconds);
  }
}

// gRPC codes after which the server certainly did not create the workflow.
const NOT_APPLIED = new Set([3 /* INVALID_ARGUMENT */, 5, 6, 7 /* PERMISSION_DENIED */, 8 /* RESOURCE_EXHAUSTED */, 9, 11, 12, 16]);
// gRPC's own account of a call that never left this process: no connection could be made, or
// the deadline passed before one was (grpc-js names the stage it was waiting in; a sent call
// names its remote_addr).
const NEVER_SENT = /Connection refused|ECONNREFUSED|tcp connect error|waiting for (metadata filters|LB pick|name resolution)/i;
const neverSent = (err: unknown): boolean => {
  const text = `${(err as Error)?.message ?? ''} ${String((err as { cause?: unknown })?.cause ?? '')}`;
  return NEVER_SENT.test(text) && !/remote_addr=/.test(text);
};
const grpcCodeOf = (err: unknown): number | undefined => {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof e?.code === 'number' ? e.code : e?.cause?.code;
  return typeof code === 'number' ? code : undefined;
};

const CALL_BUDGET_MS = 10_000;
const PROBE_BUDGET_MS = 1_000;

/** Thin typed access to job workflows; translates Temporal's errors into the service's. */
export function createJobWorkflowClient(client: Client, opts: { taskQueue: string; retryAfterSeconds: number; eager: boolean }) {
  const retryAfterMs = opts.retryAfterSeconds * 1000;
  const unavailableError = () =>
    new AppError('dependency.unavailable', 'The workflow service is unavailable', undefined, opts.retryAfterSeconds);
  // After Temporal proved unreachable, calls fail at once until the Retry-After we gave has
  // passed: during an outage requests do not each hang for the whole call budget.
  let unreachableUntil = 0;
  const translate = (err: unknown): never => {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
      const type = err.cause.type;
      if (type === REFUSAL.invalidState || type === REFUSAL.notAssigned) throw new AppError(type, err.cause.message);
    }
    if (err instanceof WorkflowNotFoundError) throw new WorkflowClosedError(err.message);
    if (err instanceof ServiceError && /NOT_FOUND|completed/i.test(err.message)) throw new WorkflowClosedError(err.message);
    if (err instanceof ServiceError || isTransportError(err)) {
      if (isTransportError(err) || isTransportError((err as Error).cause)) unreachableUntil = Date.now() + retryAfterMs;
      throw unavailableError();
    }
    throw err;
  };
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (Date.now() < unreachableUntil) throw unavailableError();
    try {
      return await client.withDeadline(Date.now() + CALL_BUDGET_MS, fn);
    } catch (err) {
      // The SDK reports an Update past its deadline the same way whether no worker took it up
      // (the server is fine) or the server never answered (a hung connection): ask the server.
      if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
        if (!(await answers())) unreachableUntil = Date.now() + retryAfterMs;
        throw unavailableError();
      }
      return translate(err);
    }
  };
  const answers = () =>
    client
      .withDeadline(Date.now() + PROBE_BUDGET_MS, () => client.workflowService.getSystemInfo({}))
      .then(() => true, () => false);
  /** As `call`, for a start: an error that may hide a created workflow is StartOutcomeUnknownError. */
  const callStart = async (fn: () => Promise<unknown>): Promise<void> => {
    try {
      await client.withDeadline(Date.now() + CALL_BUDGET_MS, fn);
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw err;
      const code = grpcCodeOf(err);
      const applied = !(code !== undefined && NOT_APPLIED.has(code)) && !neverSent(err);
      try {
        translate(err);
      } catch (translated) {
        if (applied && translated instanceof AppError && translated.code === 'dependency.unavailable') throw new StartOutcomeUnknownError(opts.retryAfterSeconds);
        throw translated;
      }
    }
  };
  const handle = (jobId: string) => client.workflow.getHandle(workflowIdOf(jobId));

  return {
    /** Starts the job's run; false when a run with this ID is already open. */
    async start(input: JobWorkflowInput): Promise<boolean> {
      const { spec } = input;
      if (Date.now() < unreachableUntil) throw unavailableError(); // not sent: nothing started
      try {
        await callStart(() =>
          client.workflow.start('jobWorkflow', {
            workflowId: workflowIdOf(spec.jobId),
            taskQueue: opts.taskQueue,
            args: [input],
            requestEagerStart: opts.eager,
            typedSearchAttributes: [
              { key: JobStateKey, value: 'QUEUED' },
              { key: WorkspaceIdKey, value: spec.workspaceId },
              { key: JobTypeKey, value: spec.type },
              { key: LabelsKey, value: Object.entries(spec.labels).map(([k, v]) => `${k}=${v}`) },
            ],
          }),
        );
        return true;
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
        throw err;
      }
    },
    /** Ends a run nobody will ever see (its row is gone); a run already closed is left alone. */
    async terminate(jobId: string, reason: string): Promise<void> {
      try {
        await call(() => handle(jobId).terminate(reason));
      } catch (err) {
        if (!(err instanceof WorkflowClosedError)) throw err;
      }
    },
    assign: (jobId: string, input: AssignInput): Promise<JobSnapshot> =>
      call(() => handle(jobId).executeUpdate(assignUpdate, { args: [input] })),
    result: (jobId: string, input: ResultInput): Promise<JobSnapshot> =>
      call(() => handle(jobId).executeUpdate(resultUpdate, { args: [input] })),
    cancel: (jobId: string): Promise<JobSnapshot> => call(() => handle(jobId).executeUpdate(cancelUpdate)),
    recheckAgent: (jobId: string): Promise<void> => call(() => handle(jobId).signal(recheckAgentSignal)),
    withdrawLease: (jobId: string, leaseId: string): Promise<void> => call(() => handle(jobId).signal(withdrawLeaseSignal, { leaseId })),
    /** True when a run of the job's workflow exists, open or closed. */
    async exists(jobId: string): Promise<boolean> {
      try {
        await call(() => handle(jobId).describe());
        return true;
      } catch (err) {
        if (err instanceof WorkflowClosedError) return false;
        throw err;
      }
    },
  };
}

export type JobWorkflowClient = ReturnType<typeof createJobWorkflowClient>;

function isTransportError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  // gRPC UNAVAILABLE, DEADLINE_EXCEEDED and connection failures.
  return code === 14 || code === 4 || (err instanceof Error && /ECONNREFUSED|transport|connect/i.test(err.message));
}
