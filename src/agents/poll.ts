import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import type { ApiConfig } from '../config';
import type { DataKeys } from '../crypto/data-keys';
import type { Hangup } from '../shared/hangup';
import type { EmptyClaims } from './empty-claims';
import type { HandedLeases } from './handed-leases';
import type { StopLists } from './stop-lists';
import type { PollWaiters } from './poll-waiters';
import { claimSome } from '../jobs/dispatch';
import type { Transitions } from '../jobs/transitions';
import { createSemaphore } from '../shared/semaphore';
import type { JobWorkflowClient } from '../temporal/job-workflow-client';

/** What requireNode reads of a principal: whose node it may be. */
export type NodeCaller = Pick<Principal, 'workspaceId' | 'kind' | 'agentId'>;

/** The node's row as requireNode answers it (agents/service.ts): in the caller's workspace, not removed. */
type RequireNode = (principal: NodeCaller, nodeId: string) => Promise<PollingNode>;

/** A long poll's request. */
export interface PollBody {
  nodeId: string;
  maxJobs: number;
  waitSeconds: number;
}

import { type IdleNode, type Polled, type PollingNode, PollRun } from './poll-run';

export type { IdleNode, Polled };

/**
 * Who asked for a poll: told when it starts to wait (`waits`, perhaps more than once) and, once,
 * how it ended; its hangup (the client gone) ends the poll's wait as it found it.
 */
export interface PollCaller extends Hangup {
  waits?(): void;
  done(error: unknown, out?: Polled): void;
}

/**
 * An agent's long poll: claims jobs through src/jobs/dispatch.ts while there are any, else waits,
 * holding no database connection, until a job it can take is queued (PollWaiters wakes one
 * matching poll per job), its node is drained, or its deadline. Claims in flight are bounded per
 * instance.
 */
export function createPoll(o: {
  db: Knex;
  dataKeys: DataKeys;
  transitions: Transitions;
  waiters: PollWaiters;
  emptyClaims: EmptyClaims<IdleNode>;
  config: Pick<ApiConfig, 'durations' | 'limits'>;
  workflows: JobWorkflowClient;
  log: Logger;
  requireNode: RequireNode;
  /** Where each lease handed out is kept for its result's checks. */
  handedLeases: HandedLeases;
  /** What each poll's answer tells its node to stop. */
  stops: StopLists;
}) {
  const deps: PollDeps = {
    ...o,
    claims: createSemaphore(o.config.limits.claimsInFlightMax),
    claimOptions: { reservationSeconds: o.config.limits.claimReservationSeconds, workflows: o.workflows, log: o.log },
    // Once a poll holds a job, it starts further claims only for a while, and waits for one already
    // under way only up to a third of the loss clock: the held job's clock runs from its assignment.
    handOverMs: Math.min(o.config.limits.pollHandOverMs, o.config.durations.agentLostAfterMs / 5),
    abandonMs: o.config.durations.agentLostAfterMs / 3,
  };

  /**
   * Hands out up to `maxJobs`; with none to give, waits up to `waitSeconds` for a submit. The
   * caller is told when it first starts to wait (it may stop waiting on it in the HTTP chain).
   */
  return function poll(principal: Principal, body: PollBody, caller: PollCaller): void {
    new PollRun(deps, principal, body, caller).begin();
  };
}

export type PollDeps = Parameters<typeof createPoll>[0] & {
  claims: ReturnType<typeof createSemaphore>;
  claimOptions: Parameters<typeof claimSome>[4];
  handOverMs: number;
  abandonMs: number;
};
