// The job's types and pure helpers, free of Temporal so the state machine (job-machine.ts) and
// its tests load without the workflow runtime. definitions.ts re-exports all of it.

export const JOB_STATES = ['QUEUED', 'RUNNING', 'CANCELLING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const TERMINAL_STATES: readonly JobState[] = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED'];
export const isTerminal = (s: JobState): boolean => TERMINAL_STATES.includes(s);
/** A lease can hold the job only in these states: the one definition the workflow and the API share. */
export const isLive = (s: JobState): boolean => s === 'RUNNING' || s === 'CANCELLING';

export type FailureReason =
  'exit_code' | 'agent_error' | 'agent_lost' | 'timeout' | 'out_of_memory' | StopReason | TerminatedReason;
/** A run terminated in Temporal (its UI, its CLI, a batch): the job ends CANCELLED, saying so. */
export type TerminatedReason = `terminated in Temporal: ${string}`;
/**
 * Why a job is cancelled other than by a user's cancel: the service stops it (a lowered hard cap),
 * or its run was asked to cancel in Temporal (its UI, its CLI, a batch).
 */
export type StopReason = 'billing.hard_cap' | typeof CANCELLED_IN_TEMPORAL;
export const CANCELLED_IN_TEMPORAL = 'cancelled in Temporal';

/** What the workflow needs of a job. `env` stays out: secrets don't belong in workflow history. */
export interface JobSpec {
  jobId: string;
  workspaceId: string;
  type: string;
  command: string;
  labels: Record<string, string>;
  timeoutSeconds: number;
  retry: { maxAttempts: number; backoffSeconds: number };
  createdAt: string;
}

/** Durations from config, passed in so the workflow stays deterministic and tests can shorten them. */
export interface JobTimings {
  agentLostAfterMs: number;
  cancelGraceMs: number;
  agentLossBackoffMs: number;
  agentLossMaxAttempts: number;
}

export interface JobWorkflowInput {
  spec: JobSpec;
  timings: JobTimings;
  /** Attempt number of the first hand-out in this run; a manual retry starts a new run at attempt + 1. */
  attempt: number;
  /** Projection version the row already has; the run's own writes continue from it. */
  version: number;
  /** A manual retry: the run projects its QUEUED state before anything else. */
  manualRetry?: boolean;
}

/** The job as the workflow sees it; projected into PostgreSQL after each transition. */
export interface JobSnapshot {
  jobId: string;
  state: JobState;
  attempt: number;
  leaseId: string | null;
  agentId: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  exitCode: number | null;
  runtimeMs: number | null;
  failureReason: FailureReason | null;
  error: string | null;
  availableAt: string;
  version: number;
}

/** How an attempt ended, projected beside the snapshot. */
export interface AttemptEnd {
  leaseId: string;
  /** `undelivered`: the assignment never reached the agent (its poll failed); not an agent loss. */
  reason:
    'result' | 'timeout' | 'cancelled' | 'agent_lost' | 'drain_deadline' | 'deregistered' | 'undelivered' | 'reset';
  /** The agent must kill the attempt's process. */
  kill: boolean;
  /**
   * When the run decided it (its workflow time): the attempt ends, and is billed, up to here
   * however late its projection is written. Absent in ends of runs from before it was kept.
   */
  at?: string;
  result?: ResultInput;
}

/**
 * What a transition leaves behind: the job and every attempt end of the run so far. Updates return
 * it, so the caller writes the read model itself; the run's result is the last one. Writing it is
 * idempotent (versions guard the row, attempt ends only fill what is empty), so any copy of it,
 * however late, can repair the read model.
 */
export interface Transition {
  snapshot: JobSnapshot;
  ends: AttemptEnd[];
}

export interface AssignInput {
  leaseId: string;
  agentId: string;
}

export interface ResultInput {
  leaseId: string;
  /** The reporting agent: a lease is refused from any agent but the one it was handed to. */
  agentId?: string;
  exitCode: number;
  runtimeMs: number;
  error?: string;
  /** The job passed its `memoryMb` and the kernel killed it (an agent that holds jobs to it says so). */
  outOfMemory?: boolean;
  /** What the agent measured itself; each figure given replaces the metered estimate (CONTRACT §9). */
  usage?: ReportedUsage;
}

export interface ReportedUsage {
  cpuSeconds?: number;
  gpuSeconds?: number;
  gbSeconds?: number;
  /** The most memory it held at once: kept with the attempt, not priced. */
  peakMemoryMb?: number;
}

/** Failure types of refused updates; the API maps them to HTTP 409 codes. */
export const REFUSAL = { invalidState: 'job.invalid_state', notAssigned: 'job.not_assigned' } as const;

/** Failure types a job's run closes with when the job failed or timed out (the UI shows it Failed). */
export const RUN_FAILURE = { failed: 'job.failed', timedOut: 'job.timed_out' } as const;

/** What the read model is written from: a snapshot and the attempts it ended. */
export interface ProjectJobInput {
  snapshot: JobSnapshot;
  workspaceId: string;
  attemptEnds: AttemptEnd[];
  /**
   * The first write of a reset run (Temporal's Reset): it replays from an earlier point, so its
   * snapshot's version and attempt are behind the row's. The write takes the row over at the
   * row's next version, fences the attempt the row still holds, and answers the offsets the run
   * adds to its own numbers from then on.
   */
  takeover?: { runId: string };
}

/** What a reset run adds to its version and attempt numbers to continue the row's (ProjectJobInput.takeover). */
export interface Rebase {
  version: number;
  attempt: number;
}

export interface AttemptCheck {
  /** Time left before the agent counts as lost; <= 0 means lost now. */
  msUntilLost: number;
  /** Time left before the agent's drain deadline requeues the job, if one is set. */
  msUntilDrainDeadline: number | null;
  /** The agent was removed (DELETE /v0/agents/{id}): requeue now, not counted as a loss. */
  deregistered?: boolean;
}

/**
 * The snapshot a run starts from: queued at its attempt, available `at`. A manual retry's run
 * is one version past the row it retries, so its first write lands over the finished state.
 */
export const queuedSnapshot = (input: JobWorkflowInput, at: string): JobSnapshot => ({
  jobId: input.spec.jobId,
  state: 'QUEUED',
  attempt: input.attempt,
  leaseId: null,
  agentId: null,
  startedAt: null,
  finishedAt: null,
  exitCode: null,
  runtimeMs: null,
  failureReason: null,
  error: null,
  availableAt: at,
  version: input.manualRetry ? input.version + 1 : input.version,
});
