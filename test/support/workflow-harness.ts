import { type Client, type WorkflowHandle, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { JobActivities, WebhookActivities } from '../../activities/types';
import type { AttemptCheck, ProjectJobInput } from '../../workflows/definitions';
import { ATTEMPT_FAILED, type DeliverNextInput } from '../../workflows/webhook-definitions';
import {
  type JobSnapshot,
  type JobState,
  type JobTimings,
  type JobWorkflowInput,
  type Transition,
  stateQuery,
} from '../../workflows/definitions';

/** Short durations so the workflow's timer paths run in well under a second each. */
export const UNIT_TIMINGS: JobTimings = {
  agentLostAfterMs: 400,
  cancelGraceMs: 300,
  agentLossBackoffMs: 400,
  agentLossMaxAttempts: 3,
};

/**
 * Stand-in activities for workflow unit tests: they record every projection and answer liveness
 * checks from what the test says about each lease, in place of PostgreSQL.
 */
export class FakeActivities {
  readonly projections: ProjectJobInput[] = [];
  /** Leases whose agent has gone silent. */
  readonly silent = new Set<string>();
  /** Drain deadlines by lease, as epoch ms. */
  readonly drainDeadlines = new Map<string, number>();
  /** Leases whose agent was removed (DELETE /v0/agents/{id}). */
  readonly removed = new Set<string>();

  /** When each projection was written (epoch ms), in the order of `projections`. */
  readonly writtenAt: number[] = [];
  /** How long a projection's activity takes to finish after its write (a loaded database's commit). */
  projectionTailMs = 0;

  readonly activities: JobActivities = {
    projectJob: async (input) => {
      this.projections.push(input);
      this.writtenAt.push(Date.now());
      if (this.projectionTailMs) await new Promise((r) => setTimeout(r, this.projectionTailMs));
    },
    checkAttempt: async ({ leaseId, lostAfterMs }): Promise<AttemptCheck> => {
      const drainAt = this.drainDeadlines.get(leaseId);
      return {
        msUntilLost: this.silent.has(leaseId) ? 0 : lostAfterMs,
        msUntilDrainDeadline: drainAt === undefined ? null : Math.max(0, drainAt - Date.now()),
        ...(this.removed.has(leaseId) && { deregistered: true }),
      };
    },
  };

  /** Forgets what earlier runs set, so lease IDs can repeat across scenarios. */
  reset(): void {
    this.projections.length = 0;
    this.writtenAt.length = 0;
    this.projectionTailMs = 0;
    this.silent.clear();
    this.drainDeadlines.clear();
    this.removed.clear();
  }

  statesOf(jobId: string): JobState[] {
    const states = this.projections.filter((p) => p.snapshot.jobId === jobId).map((p) => p.snapshot.state);
    return states.filter((s, i) => i === 0 || states[i - 1] !== s);
  }

  /** The transitions the run wrote itself (callers of its Updates write theirs). */
  projectionsOf(jobId: string): ProjectJobInput[] {
    return this.projections.filter((p) => p.snapshot.jobId === jobId);
  }
}

/**
 * Stand-in webhook activities (activities/webhooks.ts) for recording the delivery workflows: an
 * outbox of event seqs per job in place of PostgreSQL, and receivers whose answers the test sets
 * per event. A failing attempt throws as the real one does, so Temporal retries it.
 */
export class FakeWebhookActivities {
  /** Event seqs waiting in the outbox, by job. */
  readonly outbox = new Map<string, number[]>();
  /** Attempts that fail (and will be retried) before the receiver takes the event, by seq. */
  readonly failuresBefore = new Map<number, number>();
  /** Events whose retry window runs out: their attempt is the last, logged `failed`. */
  readonly givenUp = new Set<number>();
  /** Called when a lane's read finds nothing, before it answers (a relay waking it meanwhile). */
  onEmptyRead?: (input: DeliverNextInput) => Promise<void>;
  /** Every attempt: event seq and what became of it. */
  readonly attempts: Array<{ seq: number; status: 'succeeded' | 'pending' | 'failed' }> = [];

  readonly activities: WebhookActivities = {
    deliverNext: async (input) => {
      const cursor = input.afterSeq ?? 0;
      const seq = (this.outbox.get(input.jobId) ?? []).find((s) => s > cursor);
      if (seq !== undefined) return { kind: 'delivered', seq, outcome: this.attempt(seq) };
      const hook = this.onEmptyRead;
      this.onEmptyRead = undefined;
      await hook?.(input);
      return { kind: 'none', cursor };
    },
    deliverWebhook: async ({ eventSeq }) => this.attempt(eventSeq),
  };

  reset(): void {
    this.outbox.clear();
    this.failuresBefore.clear();
    this.givenUp.clear();
    this.onEmptyRead = undefined;
    this.attempts.length = 0;
  }

  private attempt(seq: number): 'succeeded' | 'failed' {
    const failures = this.failuresBefore.get(seq) ?? 0;
    if (failures > 0) {
      this.failuresBefore.set(seq, failures - 1);
      this.attempts.push({ seq, status: 'pending' });
      // Temporal waits about a second before a retry, whatever the delay asks.
      throw ApplicationFailure.create({ type: ATTEMPT_FAILED, message: 'receiver answered 503', nextRetryDelay: 10 });
    }
    const status = this.givenUp.has(seq) ? 'failed' : 'succeeded';
    this.attempts.push({ seq, status });
    return status;
  }
}

/** How the run ended: its result, or for a failed or timed-out job the details of its failure. */
export async function finalOf(handle: WorkflowHandle): Promise<Transition> {
  try {
    return (await handle.result()) as Transition;
  } catch (err) {
    if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure && err.cause.details?.[0])
      return err.cause.details[0] as Transition;
    throw err;
  }
}

let counter = 0;

export function workflowInput(
  overrides: Partial<JobWorkflowInput['spec']> = {},
  timings = UNIT_TIMINGS,
): JobWorkflowInput {
  const jobId = `wfunit${Date.now().toString(36)}${(counter++).toString(36)}`;
  return {
    spec: {
      jobId,
      workspaceId: 'ws_unit',
      type: 'shell',
      command: 'true',
      labels: {},
      timeoutSeconds: 60,
      retry: { maxAttempts: 1, backoffSeconds: 1 },
      createdAt: new Date().toISOString(),
      ...overrides,
    },
    timings,
    attempt: 1,
    version: 1,
  };
}

export function startJob(client: Client, taskQueue: string, input: JobWorkflowInput) {
  return client.workflow.start('job', { workflowId: input.spec.jobId, taskQueue, args: [input] });
}

/** Polls the workflow's `state` query until `pred` holds. */
export async function waitForSnapshot(
  handle: WorkflowHandle,
  pred: (s: JobSnapshot) => boolean,
  timeoutMs = 10_000,
): Promise<JobSnapshot> {
  const deadline = Date.now() + timeoutMs;
  let last: JobSnapshot | undefined;
  while (Date.now() < deadline) {
    last = await handle.query(stateQuery);
    if (pred(last)) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`workflow state never matched; last was ${JSON.stringify(last)}`);
}
