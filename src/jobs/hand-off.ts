import type { Logger } from 'pino';
import type { RideAlong } from '../db/one-trip';
import type { JobWorkflowInput, Transition } from '../../workflows/definitions';
import { newId } from '../shared/ids';
import { inSpan, traceparentOf } from '../telemetry/tracing';
import type { JobWorkflowClient } from '../temporal/job-workflow-client';
import { type Assignment, withdrawInBackground } from './hand-outs';
import type { Job } from './record';

// A submitted job handed straight to a poll waiting on this instance: its run starts with the
// poll's assignment (Update-with-Start), so the run's first workflow task takes both, and the
// poll answers with the job without a claim. Only a workspace's own node that takes any job its
// labels match waits for hand-offs (src/agents/poll-run.ts); every other job is claimed as before.

/** A waiting poll a submit took to hand its job to (src/agents/poll-waiters.ts, PollWaiters.take). */
export interface WaitingPoll {
  nodeId: string;
  /** What the poll's answer reads (its node's stop list), read in the trip that writes the hand-off. */
  alongside?: RideAlong;
  /** Wakes the poll with its assignment; false when it stopped waiting meanwhile. */
  deliver(assignment: Assignment): boolean;
  /** Nothing to hand after all: the poll claims once and waits on. */
  release(): void;
}

/** Finds a poll waiting on this instance that may be handed `job` (none: the job is claimed as any other). */
export type WaitingPolls = (job: Pick<Job, 'workspaceId' | 'selector'>) => WaitingPoll | undefined;

/** The job as its assignment left it. */
export const assignedJob = (job: Job, { snapshot: s }: Transition): Job => ({
  ...job,
  state: s.state,
  attempt: s.attempt,
  leaseId: s.leaseId,
  agentId: s.agentId,
  startedAt: s.startedAt,
  version: s.version,
});

/** A run started with its first assignment to a waiting poll. */
export interface HandedStart {
  poll: WaitingPoll;
  leaseId: string;
  /** The hand-out span's: the agent's run of the attempt is its child. */
  traceparent?: string;
  assigned: Transition;
}

/**
 * Starts the job's first run, within the submit's turn. A workspace's job goes straight to a poll
 * waiting here for one, taken only now that the turn has come; with none, or when the run was
 * already started (an earlier call with the same idempotency key) or did not take the
 * assignment, the run is started as any other and undefined returned, the poll let go.
 */
export async function startRun(
  o: { workflows: JobWorkflowClient; waitingPolls?: WaitingPolls },
  job: Job,
  input: JobWorkflowInput,
): Promise<HandedStart | undefined> {
  const poll = job.pool === 'self' ? o.waitingPolls?.(job) : undefined;
  if (!poll) {
    await o.workflows.start(input);
    return undefined;
  }
  const leaseId = newId('lease');
  try {
    // The attempt's hand-out span, as a claim's.
    return await inSpan('job.hand-out', { 'job.id': job.id, 'agent.id': poll.nodeId }, async (span) => {
      const assigned = await o.workflows.startAssigned(input, { leaseId, agentId: poll.nodeId });
      span?.setAttribute('job.attempt', 1);
      if (typeof assigned === 'object') return { poll, leaseId, traceparent: traceparentOf(), assigned };
      poll.release();
      return undefined;
    });
  } catch (err) {
    poll.release();
    throw err;
  }
}

/** A hand-off that cannot go ahead: the poll claims and waits on, the run takes its assignment back. */
export function abandonHandOff(o: { workflows: JobWorkflowClient; log: Logger }, jobId: string, h: HandedStart): void {
  h.poll.release();
  withdrawInBackground(o.workflows, jobId, h.leaseId, o.log);
}

/**
 * Once the job is visible with its assignment written (transitions.create writes both, as a
 * claim's is written before its answer): hands it to the poll. A poll that stopped waiting
 * meanwhile never hears of it: the lease is withdrawn and the run queues the job again, no loss
 * counted.
 */
export function handOver(
  o: { workflows: JobWorkflowClient; log: Logger },
  job: Job,
  { poll, leaseId, traceparent, assigned }: HandedStart,
): void {
  if (!poll.deliver({ job: assignedJob(job, assigned), leaseId, traceparent }))
    withdrawInBackground(o.workflows, job.id, leaseId, o.log);
}
