import { type Client, type WorkflowHandle, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { JobActivities } from '../../activities/types';
import type { AttemptCheck, ProjectJobInput } from '../../workflows/definitions';
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

  readonly activities: JobActivities = {
    projectJob: async (input) => {
      this.projections.push(input);
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

/** How the run ended: its result, or for a failed or timed-out job the details of its failure. */
export async function finalOf(handle: WorkflowHandle): Promise<Transition> {
  try {
    return (await handle.result()) as Transition;
  } catch (err) {
    if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure && err.cause.details?.[0]) return err.cause.details[0] as Transition;
    throw err;
  }
}

let counter = 0;

export function workflowInput(overrides: Partial<JobWorkflowInput['spec']> = {}, timings = UNIT_TIMINGS): JobWorkflowInput {
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
