import {
  type Client,
  type WorkflowHandle,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { traceIdOf, traceparentOf } from '../telemetry/tracing';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../shared/errors';
import {
  StartOutcomeUnknownError,
  WorkflowClosedError,
  abortedWithItsTask,
  grpcCodeOf,
  neverSent,
  NOT_APPLIED,
  translateError,
} from './grpc-errors';

import {
  type AssignInput,
  type JobSnapshot,
  type JobWorkflowInput,
  type ResultInput,
  type StopReason,
  type Transition,
  assignUpdate,
  cancelUpdate,
  recheckAgentSignal,
  resultUpdate,
  stopSignal,
  stateQuery,
  withdrawLeaseSignal,
} from '../../workflows/definitions';
import { JobStateKey, JobTypeKey, LabelsKey, WorkspaceIdKey } from '../../workflows/search-attributes';

export { StartOutcomeUnknownError, WorkflowClosedError } from './grpc-errors';

/** The job's run was terminated in Temporal (its UI, its CLI, a batch): nothing of it will answer again. */
export class RunTerminatedError extends Error {
  constructor(readonly reason: string) {
    super(`the job's run was terminated in Temporal: ${reason}`);
  }
}

/** A job's workflow ID is the job ID itself: paste it into the Temporal UI and find the job. */
export const workflowIdOf = (jobId: string) => jobId;
const WORKFLOW_TYPE = 'job';
const SUMMARY_BYTES = 200;

/** The UI's one-line summary of a run: the job's type and its command's first line. */
export function summaryOf(spec: { type: string; command: string }): string {
  const firstLine = spec.command.split('\n', 1)[0]!.trim();
  let summary = `${spec.type}: ${firstLine}`;
  while (Buffer.byteLength(summary) > SUMMARY_BYTES) summary = `${summary.slice(0, -2)}…`;
  return summary;
}

/** The run's static details in the UI: its workspace and labels (Markdown). */
function detailsOf(spec: { workspaceId: string; labels: Record<string, string> }): string {
  const labels = Object.entries(spec.labels).map(([k, v]) => `\`${k}=${v}\``);
  return `Workspace \`${spec.workspaceId}\`${labels.length ? ` · labels ${labels.join(' ')}` : ''}`;
}

const CALL_BUDGET_MS = 10_000;
const PROBE_BUDGET_MS = 1_000;
const UPDATE_RETRY_MS = 50;
const UPDATE_RETRY_MAX_MS = 1_000;
/** An Update sent again is sent with at least this much of the call's budget left. */
const UPDATE_LAST_TRY_MS = 1_000;
/** Runs per page of a visibility list (the server's default maximum is 1000). */
const LIST_PAGE_SIZE = 500;

/** Thin typed access to job workflows; translates Temporal's errors into the service's. */
export function createJobWorkflowClient(
  client: Client,
  opts: {
    taskQueue: string;
    retryAfterSeconds: number;
    eager: boolean;
    /**
     * Called before a job's first start is sealed, so the codec need not look its workspace up:
     * it could not, as a held submit's row commits only after its run started (src/jobs/submit.ts).
     */
    knowJob: (jobId: string, workspaceId: string) => void;
  },
) {
  const retryAfterMs = opts.retryAfterSeconds * 1000;
  const unavailableError = (cause?: unknown) =>
    new AppError(
      'dependency.unavailable',
      'The workflow service is unavailable',
      undefined,
      opts.retryAfterSeconds,
      cause,
    );
  // After Temporal proved unreachable, calls fail at once until the Retry-After we gave has
  // passed: during an outage requests do not each hang for the whole call budget.
  let unreachableUntil = 0;
  const translate = (err: unknown): never =>
    translateError(err, unavailableError, () => {
      unreachableUntil = Date.now() + retryAfterMs;
    });
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (Date.now() < unreachableUntil) throw unavailableError();
    try {
      return await client.withDeadline(Date.now() + CALL_BUDGET_MS, fn);
    } catch (err) {
      // The SDK reports an Update past its deadline the same way whether no worker took it up
      // (the server is fine) or the server never answered (a hung connection): ask the server.
      if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
        const reachable = await answers();
        if (!reachable) unreachableUntil = Date.now() + retryAfterMs;
        throw unavailableError(
          new Error(
            `no answer to the Update within ${CALL_BUDGET_MS} ms; the server ${reachable ? 'answers' : 'does not answer'}`,
            { cause: err },
          ),
        );
      }
      return translate(err);
    }
  };
  const answers = () =>
    client
      .withDeadline(Date.now() + PROBE_BUDGET_MS, () => client.workflowService.getSystemInfo({}))
      .then(
        () => true,
        () => false,
      );
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
        if (applied && translated instanceof AppError && translated.code === 'dependency.unavailable')
          throw new StartOutcomeUnknownError(opts.retryAfterSeconds);
        throw translated;
      }
    }
  };
  /**
   * Every workflow ID a visibility `query` finds, a page at a time through the list's cursor (its
   * next-page token), however many there are. Each page is a call of its own, with its own budget.
   */
  async function* pagesOf(query: string): AsyncGenerator<string[]> {
    let nextPageToken: Uint8Array | null | undefined;
    do {
      const page = await call(() =>
        client.workflowService.listWorkflowExecutions({
          namespace: client.options.namespace,
          query,
          pageSize: LIST_PAGE_SIZE,
          nextPageToken,
        }),
      );
      const ids = page.executions.flatMap((run) => run.execution?.workflowId ?? []);
      if (ids.length) yield ids;
      nextPageToken = page.nextPageToken;
    } while (nextPageToken?.length);
  }
  /** The reason an operator gave for terminating a run, on its close event: one event read, not the whole history. */
  const terminationReason = async (workflowId: string, runId: string): Promise<string> => {
    const { history } = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, runId },
      historyEventFilterType: temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
    });
    return history?.events?.at(-1)?.workflowExecutionTerminatedEventAttributes?.reason || 'no reason given';
  };
  /** Runs `fn` on the job's workflow. */
  const onRun = <T>(jobId: string, fn: (h: WorkflowHandle) => Promise<T>): Promise<T> =>
    fn(client.workflow.getHandle(workflowIdOf(jobId)));

  /**
   * Runs one of the job's Updates. The server aborts an Update with WorkflowNotReady ("unexpected
   * workflow task failure") whenever it fails the workflow task that carried it: a task that
   * completes the run while a new event (a timer, an activity's end) arrived, or one whose update
   * record was cleared under load. Nothing of the Update was applied, and the next task usually
   * takes it: it is sent again, with a growing pause, until the call's budget is nearly spent,
   * under the same update ID, which a run accepts at most once.
   */
  const update = <T>(jobId: string, send: (h: WorkflowHandle, updateId: string) => Promise<T>): Promise<T> =>
    call(async () => {
      const updateId = randomUUID();
      const giveUpAt = Date.now() + CALL_BUDGET_MS - UPDATE_LAST_TRY_MS;
      for (let pause = UPDATE_RETRY_MS; ; pause = Math.min(pause * 2, UPDATE_RETRY_MAX_MS)) {
        try {
          return await onRun(jobId, (h) => send(h, updateId));
        } catch (err) {
          if (!abortedWithItsTask(err) || Date.now() + pause > giveUpAt) throw err;
          await sleep(pause);
        }
      }
    });

  /** A job's run as it is started: a first run once ever, a retry by hand under a closed one's ID. */
  const startOptionsOf = (input: JobWorkflowInput) => {
    const { spec } = input;
    opts.knowJob(spec.jobId, spec.workspaceId);
    // Started within the submit's span: its trace is the job's, findable from the run.
    const traceId = traceIdOf(traceparentOf());
    return {
      workflowId: workflowIdOf(spec.jobId),
      taskQueue: opts.taskQueue,
      // A job's first run starts once, ever: a submit carried out again (a takeover after a
      // crash, an idempotent resubmit) finds the run, open or closed, instead of a second.
      // Only a retry by hand starts a run under a closed one's ID.
      workflowIdReusePolicy: input.manualRetry ? ('ALLOW_DUPLICATE' as const) : ('REJECT_DUPLICATE' as const),
      workflowIdConflictPolicy: 'FAIL' as const,
      args: [input] as [JobWorkflowInput],
      requestEagerStart: opts.eager,
      staticSummary: summaryOf(spec),
      staticDetails: detailsOf(spec),
      ...(traceId && { memo: { traceId } }),
      typedSearchAttributes: [
        { key: JobStateKey, value: 'QUEUED' },
        { key: WorkspaceIdKey, value: spec.workspaceId },
        { key: JobTypeKey, value: spec.type },
        { key: LabelsKey, value: Object.entries(spec.labels).map(([k, v]) => `${k}=${v}`) },
      ],
    };
  };

  return {
    /** Starts the job's run; false when a run with this ID is already open (or, for a first run, ever was). */
    async start(input: JobWorkflowInput): Promise<boolean> {
      if (Date.now() < unreachableUntil) throw unavailableError(); // not sent: nothing started
      try {
        await callStart(() => client.workflow.start(WORKFLOW_TYPE, startOptionsOf(input)));
        return true;
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
        throw err;
      }
    },
    /**
     * Starts the job's first run with its assignment to a poll already waiting, in one call
     * (Update-with-Start): the run's first workflow task takes both. `exists` when a run with this
     * ID already was (nothing assigned), `refused` when the run started but did not take the
     * assignment; either way the job is then claimed as any other.
     */
    async startAssigned(input: JobWorkflowInput, assign: AssignInput): Promise<Transition | 'exists' | 'refused'> {
      if (Date.now() < unreachableUntil) throw unavailableError(); // not sent: nothing started
      let outcome: Transition | 'refused' = 'refused';
      try {
        await callStart(async () => {
          const startWorkflowOperation = new WithStartWorkflowOperation(WORKFLOW_TYPE, {
            ...startOptionsOf(input),
            // The first task goes to the worker through matching, carrying the Update.
            requestEagerStart: false,
          });
          try {
            outcome = await client.workflow.executeUpdateWithStart(assignUpdate, {
              args: [assign],
              startWorkflowOperation,
            });
          } catch (err) {
            // The run started (else the start's own error): only the assignment was refused.
            if (err instanceof WorkflowUpdateFailedError) return;
            throw err;
          }
        });
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 'exists';
        throw err;
      }
      return outcome;
    },
    /** Ends a run nobody will ever see (its row is gone); a run already closed is left alone. */
    async terminate(jobId: string, reason: string): Promise<void> {
      try {
        await call(() => onRun(jobId, (h) => h.terminate(reason)));
      } catch (err) {
        if (!(err instanceof WorkflowClosedError)) throw err;
      }
    },
    assign: (jobId: string, input: AssignInput): Promise<Transition> =>
      update(jobId, (h, updateId) => h.executeUpdate(assignUpdate, { args: [input], updateId })),
    result: (jobId: string, input: ResultInput): Promise<Transition> =>
      update(jobId, (h, updateId) => h.executeUpdate(resultUpdate, { args: [input], updateId })),
    cancel: (jobId: string): Promise<Transition> =>
      update(jobId, (h, updateId) => h.executeUpdate(cancelUpdate, { updateId })),
    recheckAgent: (jobId: string): Promise<void> => call(() => onRun(jobId, (h) => h.signal(recheckAgentSignal))),
    withdrawLease: (jobId: string, leaseId: string): Promise<void> =>
      call(() => onRun(jobId, (h) => h.signal(withdrawLeaseSignal, { leaseId }))),
    /** The service stops the job on its own account (a cancel with `reason` as its failureReason). */
    stop: (jobId: string, reason: StopReason): Promise<void> =>
      call(() => onRun(jobId, (h) => h.signal(stopSignal, { reason }))),
    /** True when a run of the job's workflow exists, open or closed. */
    async exists(jobId: string): Promise<boolean> {
      try {
        await call(() => onRun(jobId, (h) => h.describe()));
        return true;
      } catch (err) {
        if (err instanceof WorkflowClosedError) return false;
        throw err;
      }
    },
    /** IDs of jobs whose run is open and started in [from, to) (of one workspace's), from visibility, a page at a time. */
    openStartedBetween: (from: Date, to: Date, workspaceId?: string): AsyncGenerator<string[]> =>
      pagesOf(
        `WorkflowType = "${WORKFLOW_TYPE}" AND ExecutionStatus = "Running" AND StartTime >= "${from.toISOString()}" AND StartTime < "${to.toISOString()}"` +
          (workspaceId ? ` AND ${WorkspaceIdKey.name} = "${workspaceId.replace(/[^\w-]/g, '')}"` : ''),
      ),
    /** IDs of jobs whose run was terminated since `since`, from visibility, a page at a time. */
    terminatedSince: (since: Date): AsyncGenerator<string[]> =>
      pagesOf(
        `WorkflowType = "${WORKFLOW_TYPE}" AND ExecutionStatus = "Terminated" AND CloseTime > "${since.toISOString()}"`,
      ),
    /** IDs of jobs whose run closed since `since` with the job in `state`, from visibility, a page at a time. */
    closedSince: (since: Date, state: JobSnapshot['state']): AsyncGenerator<string[]> =>
      pagesOf(
        `WorkflowType = "${WORKFLOW_TYPE}" AND ExecutionStatus != "Running" AND ${JobStateKey.name} = "${state}" AND CloseTime > "${since.toISOString()}"`,
      ),
    /**
     * The job as its run knows it, for repairing a read model that fell behind: an open run is
     * asked (a query adds nothing to its history), a closed one gives its result. Undefined when
     * no run exists.
     */
    async truth(jobId: string): Promise<Transition | undefined> {
      return call(() =>
        onRun(jobId, async (h) => {
          const { status, runId } = await h.describe();
          if (status.name === 'RUNNING') {
            const { spec, ends, ...snapshot } = await h.query(stateQuery);
            return { snapshot, ends: ends ?? [] };
          }
          if (status.name === 'TERMINATED') throw new RunTerminatedError(await terminationReason(h.workflowId, runId));
          try {
            return (await h.result()) as Transition;
          } catch (err) {
            // A failed or timed-out job closes its run as Failed, the transition in its details.
            const details =
              err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure
                ? err.cause.details
                : undefined;
            if (details?.[0]) return details[0] as Transition;
            throw err;
          }
        }),
      ).catch((err) => {
        if (err instanceof WorkflowClosedError) return undefined;
        throw err;
      });
    },
  };
}

export type JobWorkflowClient = ReturnType<typeof createJobWorkflowClient>;
