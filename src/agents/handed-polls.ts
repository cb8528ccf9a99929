import { queuedChannelOf } from '../db/channels';
import type { ClaimingAgent } from '../jobs/dispatch';
import type { Assignment } from '../jobs/hand-outs';
import type { WaitingPolls } from '../jobs/hand-off';
import type { PollWaiters } from './poll-waiters';
import type { StopLists } from './stop-lists';

// The polls a submit may hand its job to (src/jobs/hand-off.ts): a workspace's own waiting polls
// on this instance, each answered with its node's stop list read in the trip that writes the
// hand-off, so the answer needs no read of its own.

/** What a submit hands a waiting poll: its assignment, and its node's stop list, read with the hand-off's write. */
export interface Handed {
  assignment: Assignment;
  cancel?: string[];
}

/**
 * Whether a submit may hand the node's waiting poll a job directly: a workspace's own node that
 * takes any job its labels match, with nothing else to weigh (no key quotas, no capacity to fit,
 * no drain). Others are only ever offered jobs, and claim them.
 */
export function takesHandOffs(
  node: Pick<ClaimingAgent, 'pool' | 'key_has_quotas'> & { capacity: unknown; drain: boolean },
  maxJobs: number,
): boolean {
  return maxJobs >= 1 && node.pool === 'self' && !node.key_has_quotas && !node.capacity && !node.drain;
}

/** Takes, for a job, a poll of its workspace waiting here that takes hand-offs (PollWaiters.take). */
export function handedPolls(waiters: PollWaiters, stops: StopLists): WaitingPolls {
  return (job) => {
    const poll = waiters.take(
      queuedChannelOf({ pool: 'self', region: null, workspace_id: job.workspaceId }),
      job.selector,
    );
    if (!poll) return undefined;
    let cancel: string[] | undefined;
    return {
      nodeId: poll.nodeId,
      alongside: stops.alongside(poll.nodeId, (jobs) => (cancel = jobs)),
      deliver: (assignment) => poll.deliver({ assignment, cancel } satisfies Handed),
      release: () => poll.release(),
    };
  };
}
