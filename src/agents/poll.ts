import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import type { ApiConfig } from '../config';
import type { DataKeys } from '../crypto/data-keys';
import { queuedChannelOf } from '../db/channels';
import type { Hangup } from '../shared/hangup';
import type { ClaimShape, EmptyClaims } from './empty-claims';
import { stopLists } from './stop-lists';
import type { PollWaiters } from './poll-waiters';
import { type Assignment, type ClaimingAgent, claimOne, withdrawInBackground } from '../jobs/dispatch';
import { openEnv } from '../jobs/env-at-rest';
import { resourcesOf } from '../jobs/record';
import type { Capacity } from './record';
import type { Transitions } from '../jobs/transitions';
import { claimsRun, dispatchLatency, longPollsWaiting } from '../metrics/registry';
import { createSemaphore } from '../shared/semaphore';
import type { JobWorkflowClient } from '../temporal/job-workflow-client';

/** The node's row as requireNode answers it (agents/service.ts): in the caller's workspace, not removed. */
type RequireNode = (principal: Principal, nodeId: string) => Promise<PollingNode>;

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
}) {
  const { db, transitions, waiters, emptyClaims, requireNode } = o;
  const stops = stopLists(db);
  const claims = createSemaphore(o.config.limits.claimsInFlightMax);
  const claimOptions = {
    reservationSeconds: o.config.limits.claimReservationSeconds,
    workflows: o.workflows,
    log: o.log,
  };
  // Once a poll holds a job, it starts further claims only for a while, and waits for one already
  // under way only up to a third of the loss clock: the held job's clock runs from its assignment.
  const handOverMs = Math.min(o.config.limits.pollHandOverMs, o.config.durations.agentLostAfterMs / 5);
  const abandonMs = o.config.durations.agentLostAfterMs / 3;

  /**
   * Hands out up to `maxJobs`; with none to give, waits up to `waitSeconds` for a submit.
   * `waits` is called when it first starts to wait (its caller may stop waiting on it in the HTTP chain).
   */
  return async function poll(
    principal: Principal,
    body: { nodeId: string; maxJobs: number; waitSeconds: number },
    signal?: Hangup,
    waits?: () => void,
  ) {
    // A node's own renewed poll while it is idle (src/agents/empty-claims.ts) reads nothing: it
    // claims nothing, and whatever changes the node wakes it to read the row afresh.
    const idle =
      principal.kind === 'node' && principal.agentId === body.nodeId ? emptyClaims.idle(body.nodeId) : undefined;
    const known = idle && idle.node.workspace_id === principal.workspaceId ? idle : undefined;
    let node = known ? known.node : slim(await requireNode(principal, body.nodeId));
    // What its running jobs leave of its capacity; each job taken here takes its share too.
    let free = known ? known.free : await freeOf(db, node);
    // A drain that starts while this poll waits answers it at once; an already draining node
    // still long-polls, so an idle drained agent does not spin.
    const drainingAtStart = node.drain as boolean;
    const deadline = Date.now() + body.waitSeconds * 1000;
    const jobs: Assignment[] = [];
    const skip: string[] = [];
    // Started with the first job taken; a poll that waits holds none.
    let clocks: { handOver: Late; abandon: Late } | undefined;
    // Registered before the first claim: a job queued while it claims still wakes it.
    const ticket = waiters.enter(queuedChannelOf(node), node.id, node.labels, takesHandOffs(node, body.maxJobs));
    try {
      // Claims after a wake are what a queued job costs; the first is what a poll costs.
      let after: 'start' | 'wake' = 'start';
      for (;;) {
        const taken: string[] = [];
        // A renewed poll of an idle node: nothing it could take was queued since its last claim.
        const shape = claimShapeOf(node, free);
        const skipClaims =
          after === 'start' &&
          shape !== undefined &&
          (known !== undefined || emptyClaims.wouldFindNothing(node.id, shape));
        if (skipClaims) claimsRun.inc({ after, outcome: 'skipped' });
        while (!skipClaims && !node.drain && jobs.length < body.maxJobs && !clocks?.handOver.fired) {
          // Bounded per instance: each claim in flight is a Temporal Update waiting on a worker.
          const leave = await claims.enter(deadline, signal);
          if (!leave) break;
          const claimedFrom = emptyClaims.started();
          const seesAll = shape !== undefined && skip.length === 0 && jobs.length === 0;
          const claim = claimOne(db, transitions, { ...node, ...(free && { free }) }, skip, claimOptions).finally(
            leave,
          );
          let next: Assignment | null | 'late';
          try {
            // Jobs already held wait for this claim only so long: a claim can be slow (a worker's
            // sticky queue left by a crash, a loaded worker), and their loss clocks are running.
            next = clocks ? await Promise.race([claim, clocks.abandon.promise]) : await claim;
          } catch (err) {
            // Jobs already assigned are the agent's now: hand them over, report the failure next time.
            if (jobs.length === 0) throw err;
            next = null;
          }
          claimsRun.inc({ after, outcome: next === null ? 'none' : next === 'late' ? 'late' : 'assigned' });
          if (next === 'late') {
            // Nobody will deliver what this claim takes: the workflow requeues it, no loss counted.
            claim
              .then((late) => late && withdrawInBackground(o.workflows, late.job.id, late.leaseId, o.log))
              .catch(() => undefined);
            break;
          }
          if (!next) {
            if (seesAll && shape) emptyClaims.foundNothing(node.id, claimedFrom, shape, { node, free });
            break;
          }
          emptyClaims.forget(node.id);
          clocks ??= { handOver: lateAfter(handOverMs), abandon: lateAfter(abandonMs) };
          if (next.job.attempt === 1) dispatchLatency.observe((Date.now() - Date.parse(next.job.createdAt)) / 1000);
          jobs.push(next);
          taken.push(next.job.id);
          if (free) free = less(free, resourcesOf(next.job));
        }
        // Jobs it was woken for and did not take go on to another poll that can.
        await ticket.settle(taken);
        if (jobs.length > 0 || (node.drain && !drainingAtStart) || Date.now() >= deadline || signal?.aborted) break;
        longPollsWaiting.inc();
        waits?.();
        // Its deadline (or its caller's abort) ends the poll as it found it: no claim to run again.
        if (!(await ticket.wait(deadline - Date.now(), signal).finally(() => longPollsWaiting.dec()))) break;
        // A submit handed it its job straight away (src/jobs/hand-off.ts): assigned, nothing to claim.
        const handed = ticket.handed() as Assignment | undefined;
        if (handed) {
          claimsRun.inc({ after: 'wake', outcome: 'handed' });
          dispatchLatency.observe((Date.now() - Date.parse(handed.job.createdAt)) / 1000);
          jobs.push(handed);
          break;
        }
        after = 'wake';
        node = slim(await requireNode(principal, body.nodeId));
        free = await freeOf(db, node);
        ticket.relabel(node.labels, takesHandOffs(node, body.maxJobs));
      }
    } finally {
      clocks?.handOver.clear();
      clocks?.abandon.clear();
      ticket.dispose();
    }
    const cancel = await stops.of(
      node.id,
      jobs.map((j) => j.job.id),
    );
    // Each job's env opens here, for its agent only: the row keeps it sealed.
    const handed = await Promise.all(
      jobs.map(async (a) => ({ ...a, env: await openEnv(o.dataKeys, a.job.workspaceId, a.job.id, a.job.env) })),
    );
    return { jobs: handed, cancel };
  };
}

/**
 * What a claim of the node could take, for EmptyClaims; undefined where a claim can find nothing
 * with nothing notified and then something with nothing notified either (a key's quotas free up as
 * jobs end) or where it claims nothing at all (a drain).
 */
function claimShapeOf(node: PollingNode, free: Capacity | undefined): ClaimShape | undefined {
  if (node.key_has_quotas || node.drain) return undefined;
  const [channel, scope] = queuedChannelOf(node);
  return { queue: `${channel}:${scope}`, shape: JSON.stringify([node.labels, free ?? null]) };
}

/**
 * Whether a submit may hand the node's waiting poll a job directly: a workspace's own node that
 * takes any job its labels match, with nothing else to weigh (no key quotas, no capacity to fit,
 * no drain). Others are only ever offered jobs, and claim them.
 */
function takesHandOffs(node: PollingNode, maxJobs: number): boolean {
  return maxJobs >= 1 && node.pool === 'self' && !node.key_has_quotas && !node.capacity && !node.drain;
}

/** What an idle node's renewed poll takes from its last empty claim instead of reading. */
export interface IdleNode {
  node: PollingNode;
  free: Capacity | undefined;
}

/** What a poll keeps of its node's row while it waits: what its claims and its wait read. */
type PollingNode = ClaimingAgent & { drain: boolean; capacity: Capacity | null };

function slim(n: PollingNode): PollingNode {
  const { id, workspace_id, labels, pool, region, registered_with_key_id, key_has_quotas, drain, capacity } = n;
  return { id, workspace_id, labels, pool, region, registered_with_key_id, key_has_quotas, drain, capacity };
}

/**
 * The resources of the jobs a node holds now, the contract's defaults filled in: each open
 * attempt's, and each job reserved for it whose attempt is not yet recorded (a hand-out answered
 * before its row commits: the commit clears the reservation as it writes the attempt).
 */
const IN_USE = `SELECT coalesce(sum(coalesce((j.resources->>'cpu')::numeric, 1)), 0)::float8 AS cpu,
    coalesce(sum(coalesce((j.resources->>'memoryMb')::numeric, 1024)), 0)::float8 AS "memoryMb",
    coalesce(sum(coalesce((j.resources->>'gpu')::numeric, 0)), 0)::float8 AS gpu
  FROM jobs j
  WHERE j.id IN (SELECT a.job_id FROM job_attempts a WHERE a.agent_id = :node AND a.ended_at IS NULL
                 UNION SELECT r.id FROM jobs r WHERE r.claimed_by = :node AND r.claimed_until > now())`;

/** What the node's running jobs leave of its capacity; undefined for a node that registered none. */
async function freeOf(db: Knex, node: PollingNode): Promise<Capacity | undefined> {
  if (!node.capacity) return undefined;
  const { rows } = await db.raw(IN_USE, { node: node.id });
  return less(node.capacity, rows[0] as Capacity);
}

const less = (a: Capacity, b: Capacity): Capacity => ({
  cpu: a.cpu - b.cpu,
  memoryMb: a.memoryMb - b.memoryMb,
  gpu: a.gpu - b.gpu,
});

/** A promise that resolves to 'late' once `ms` have passed. */
function lateAfter(ms: number) {
  let fired = false;
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => {
      fired = true;
      resolve('late');
    }, ms);
  });
  return {
    promise,
    get fired() {
      return fired;
    },
    clear() {
      clearTimeout(timer);
    },
  };
}
type Late = ReturnType<typeof lateAfter>;
