import type { Logger } from 'pino';
import type { Transition } from '../../workflows/definitions';
import type { JobWorkflowClient } from '../temporal/job-workflow-client';
import { type Assignment, withdrawInBackground } from './dispatch';
import type { Job } from './record';
import type { Transitions } from './transitions';

// A submitted job handed straight to a poll waiting on this instance: its run starts with the
// poll's assignment (Update-with-Start), so the run's first workflow task takes both, and the
// poll answers with the job without a claim. Only a workspace's own node that takes any job its
// labels match waits for hand-offs (src/agents/poll.ts); every other job is claimed as before.

/** A waiting poll a submit took to hand its job to (src/agents/poll-waiters.ts, PollWaiters.take). */
export interface WaitingPoll {
  nodeId: string;
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

/**
 * Once the job is visible: writes the assignment the run made (as a claim's is written, before
 * its answer) and hands it to the poll. A poll that stopped waiting meanwhile never hears of it:
 * the lease is withdrawn and the run queues the job again, no loss counted.
 */
export async function handOver(
  o: { transitions: Transitions; workflows: JobWorkflowClient; log: Logger },
  job: Job,
  poll: WaitingPoll,
  { leaseId, traceparent }: Pick<Assignment, 'leaseId' | 'traceparent'>,
  t: Transition,
): Promise<void> {
  await o.transitions.handedOut(job.id, job.workspaceId, t);
  if (!poll.deliver({ job: assignedJob(job, t), leaseId, traceparent }))
    withdrawInBackground(o.workflows, job.id, leaseId, o.log);
}
