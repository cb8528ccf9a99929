import type { Principal } from '../auth/principal';
import { queuedChannelOf } from '../db/channels';
import type { ClaimShape } from './empty-claims';
import { freeOf, less } from './free-room';
import type { Awaiting, PollTicket } from './poll-ticket';
import { type Handed, takesHandOffs } from './handed-polls';
import { type ClaimingAgent, claimSome } from '../jobs/dispatch';
import { type Assignment, withdrawInBackground } from '../jobs/hand-outs';
import { openEnv } from '../jobs/env-at-rest';
import { resourcesOf } from '../jobs/record';
import type { Capacity } from './record';
import { claimsRun, dispatchLatency, longPollsWaiting } from '../metrics/registry';
import { type Late, lateAfter } from './late-clock';
import type { NodeCaller, PollBody, PollCaller, PollDeps } from './poll';

/**
 * One poll. While it waits nothing of it is suspended in an async function: it is this object,
 * parked on its ticket (PollTicket.park), which calls `awake` (a waiting poll's frames and
 * promises were most of its memory, see bench:fleet).
 */
export class PollRun implements Awaiting, NodeCaller, PollBody {
  // What it keeps of its request while it waits: the caller's identity (not the request's
  // principal and its origin) and the body's three fields, each string the first holder's own.
  readonly workspaceId: string;
  readonly kind: Principal['kind'];
  readonly agentId?: string;
  readonly nodeId: string;
  readonly maxJobs: number;
  readonly waitSeconds: number;
  private node!: PollingNode;
  private free: Capacity | undefined;
  /** Its node was idle: a renewed poll that reads nothing and claims nothing (src/agents/empty-claims.ts). */
  private known = false;
  private drainingAtStart = false;
  private deadline = 0;
  private ticket?: PollTicket;
  // Made when it first claims: a renewed poll of an idle node never does.
  private jobs: Assignment[] = NO_JOBS;
  private skip?: string[];
  /** Its node's stop list, when read already (in the trip that wrote a hand-off to it). */
  private cancel?: string[];
  // Started with the first job taken; a poll that waits holds none.
  private clocks?: { handOver: Late; abandon: Late };
  // Claims after a wake are what a queued job costs; the first is what a poll costs.
  private after: 'start' | 'wake' = 'start';

  constructor(
    private readonly d: PollDeps,
    principal: Principal,
    body: PollBody,
    private readonly caller: PollCaller,
  ) {
    this.workspaceId = principal.workspaceId;
    this.kind = principal.kind;
    this.agentId = principal.agentId;
    this.nodeId = body.nodeId === principal.agentId ? principal.agentId : body.nodeId;
    this.maxJobs = body.maxJobs;
    this.waitSeconds = body.waitSeconds;
  }

  begin(): void {
    this.settled(this.start());
  }

  /** A step run from a callback: whatever escapes it (its caller's own answer failing) is logged, never unhandled. */
  private settled(step: Promise<void>): void {
    step.catch((err: unknown) => this.d.log.error({ err }, 'long poll failed after its answer'));
  }

  private async start(): Promise<void> {
    const { d } = this;
    try {
      // A node's own renewed poll while it is idle (src/agents/empty-claims.ts) reads nothing: it
      // claims nothing, and whatever changes the node wakes it to read the row afresh.
      const idle = this.kind === 'node' && this.agentId === this.nodeId ? d.emptyClaims.idle(this.nodeId) : undefined;
      const known = idle && idle.node.workspace_id === this.workspaceId ? idle : undefined;
      this.known = known !== undefined;
      this.node = known ? known.node : slim(await d.requireNode(this, this.nodeId), this);
      // What its running jobs leave of its capacity; each job taken here takes its share too.
      this.free = known ? known.free : await freeOf(d.db, this.node);
    } catch (err) {
      return this.caller.done(err);
    }
    // A drain that starts while this poll waits answers it at once; an already draining node
    // still long-polls, so an idle drained agent does not spin.
    this.drainingAtStart = this.node.drain;
    this.deadline = Date.now() + this.waitSeconds * 1000;
    // Registered before the first claim: a job queued while it claims still wakes it.
    this.ticket = d.waiters.enter(
      queuedChannelOf(this.node),
      this.node.id,
      this.node.labels,
      takesHandOffs(this.node, this.maxJobs),
    );
    await this.round();
  }

  /** Claims while there is something to take, then answers, or waits. */
  private async round(): Promise<void> {
    try {
      await this.claimAll();
    } catch (err) {
      return this.fail(err);
    }
    if (
      this.jobs.length > 0 ||
      (this.node.drain && !this.drainingAtStart) ||
      Date.now() >= this.deadline ||
      this.caller.aborted
    )
      return this.finish();
    longPollsWaiting.inc();
    // Nothing taken and nothing passed over: what it waits with is the shared empty lists.
    if (this.jobs.length === 0) this.jobs = NO_JOBS;
    if (this.skip?.length === 0) this.skip = undefined;
    this.caller.waits?.();
    // Its deadline (or its caller's abort) ends the poll as it found it: no claim to run again.
    this.ticket!.park(this.deadline - Date.now(), this.caller, this);
  }

  awake(woken: boolean): void {
    longPollsWaiting.dec();
    if (!woken) return this.settled(this.finish());
    // A submit handed it its job straight away (src/jobs/hand-off.ts): assigned, nothing to claim.
    const handed = this.ticket!.handed() as Handed | undefined;
    if (handed) {
      claimsRun.inc({ after: 'wake', outcome: 'handed' });
      dispatchLatency.observe((Date.now() - Date.parse(handed.assignment.job.createdAt)) / 1000);
      this.jobs = [handed.assignment];
      this.cancel = handed.cancel;
      return this.settled(this.finish());
    }
    this.after = 'wake';
    this.settled(this.reread());
  }

  /** After a wake: its node as it is now, then another round. */
  private async reread(): Promise<void> {
    const { d } = this;
    try {
      this.node = slim(await d.requireNode(this, this.nodeId), this);
      this.free = await freeOf(d.db, this.node);
    } catch (err) {
      return this.fail(err);
    }
    this.ticket!.relabel(this.node.labels, takesHandOffs(this.node, this.maxJobs));
    await this.round();
  }

  private async claimAll(): Promise<void> {
    const { d, node, after } = this;
    const taken: string[] = [];
    // A renewed poll of an idle node: nothing it could take was queued since its last claim.
    const shape = claimShapeOf(node, this.free, this.ticket!.queue);
    const skipClaims =
      after === 'start' && shape !== undefined && (this.known || d.emptyClaims.wouldFindNothing(node.id, shape));
    if (skipClaims) claimsRun.inc({ after, outcome: 'skipped' });
    else if (this.jobs === NO_JOBS) this.jobs = [];
    // Jobs its claims reserved and could not take: later claims of this poll pass them over.
    const skip = skipClaims ? [] : (this.skip ??= []);
    const jobs = this.jobs;
    while (!skipClaims && !node.drain && jobs.length < this.maxJobs && !this.clocks?.handOver.fired) {
      // Bounded per instance: each Update in flight waits on a worker. A claim in batches takes
      // what places are free now, one per job it may take, and holds them until every Update it
      // sent has its answer, a late one's too.
      const entered = await d.claims.enterUpTo(this.maxJobs - jobs.length, this.deadline, this.caller);
      if (!entered) break;
      const claimedFrom = d.emptyClaims.started();
      const seesAll = shape !== undefined && skip.length === 0 && jobs.length === 0;
      const free = this.free;
      const agent = { ...node, ...(free && { free }) };
      // Its first job taken, the clocks of what it holds start: the rest of the batch waits so long.
      const held = () => this.heldClocks().abandon.promise;
      // The answer's stop list is read in the trip that writes the assignments; a later batch's
      // read, after more of its jobs are written, replaces an earlier one's.
      const alongside = () => d.stops.alongside(node.id, (stops) => (this.cancel = stops));
      const claim = claimSome(d.db, d.transitions, agent, skip, d.claimOptions, {
        limit: entered.places,
        held,
        settled: entered.leave,
        alongside,
      });
      let next: Assignment[] | 'late';
      try {
        // Jobs already held wait for this claim only so long: a claim can be slow (a worker's
        // sticky queue left by a crash, a loaded worker), and their loss clocks are running.
        next = this.clocks ? await Promise.race([claim, this.clocks.abandon.promise]) : await claim;
      } catch (err) {
        // Jobs already assigned are the agent's now: hand them over, report the failure next time.
        if (jobs.length === 0) throw err;
        next = [];
      }
      if (next === 'late') {
        claimsRun.inc({ after, outcome: 'late' });
        // Nobody will deliver what this claim takes: the workflow requeues it, no loss counted.
        claim
          .then((late) => {
            for (const a of late) withdrawInBackground(d.workflows, a.job.id, a.leaseId, d.log);
          })
          .catch(() => undefined);
        break;
      }
      if (next.length === 0) {
        claimsRun.inc({ after, outcome: 'none' });
        if (seesAll && shape) d.emptyClaims.foundNothing(node.id, claimedFrom, shape, { node, free });
        break;
      }
      claimsRun.inc({ after, outcome: 'assigned' });
      d.emptyClaims.forget(node.id);
      this.heldClocks();
      for (const a of next) {
        if (a.job.attempt === 1) dispatchLatency.observe((Date.now() - Date.parse(a.job.createdAt)) / 1000);
        jobs.push(a);
        taken.push(a.job.id);
        if (free) this.free = less(this.free!, resourcesOf(a.job));
      }
    }
    // Jobs it was woken for and did not take go on to another poll that can.
    await this.ticket!.settle(taken);
  }

  /** The clocks of the jobs it holds, started with the first. */
  private heldClocks() {
    return (this.clocks ??= { handOver: lateAfter(this.d.handOverMs), abandon: lateAfter(this.d.abandonMs) });
  }

  /** Its place in the line given up: offers it did not settle go on. */
  private close(): void {
    this.clocks?.handOver.clear();
    this.clocks?.abandon.clear();
    this.ticket?.dispose();
  }

  private fail(err: unknown): void {
    this.close();
    this.caller.done(err);
  }

  private async finish(): Promise<void> {
    this.close();
    let out: Polled;
    try {
      out = await handOut(this.d, this.node.id, this.jobs, this.cancel);
    } catch (err) {
      return this.caller.done(err);
    }
    for (const { job, leaseId } of out.jobs)
      this.d.handedLeases.remember(leaseId, { jobId: job.id, jobWorkspaceId: job.workspaceId, node: this.node });
    this.caller.done(undefined, out);
  }
}

const NO_JOBS: Assignment[] = Object.freeze([]) as unknown as Assignment[];

/** What a poll answers: its assignments, each with its env opened, and the jobs its node must stop. */
export type Polled = Awaited<ReturnType<typeof handOut>>;

/**
 * The poll's answer: the jobs its node must stop (read now, unless read with the write that handed
 * it its job, which its own open attempt already leaves out), and each job's env, opened for its
 * agent only (the row keeps it sealed).
 */
async function handOut(d: Pick<PollDeps, 'stops' | 'dataKeys'>, node: string, jobs: Assignment[], stops?: string[]) {
  const ids = jobs.map((j) => j.job.id);
  const cancel = stops ?? (await d.stops.of(node, ids));
  const handed = await Promise.all(
    jobs.map(async (a) => ({ ...a, env: await openEnv(d.dataKeys, a.job.workspaceId, a.job.id, a.job.env) })),
  );
  return { jobs: handed, cancel };
}

/**
 * What a claim of the node could take, for EmptyClaims; undefined where a claim can find nothing
 * with nothing notified and then something with nothing notified either (a key's quotas free up as
 * jobs end) or where it claims nothing at all (a drain).
 */
function claimShapeOf(node: PollingNode, free: Capacity | undefined, queue: string): ClaimShape | undefined {
  if (node.key_has_quotas || node.drain) return undefined;
  return { queue, shape: JSON.stringify([node.labels, free ?? null]) };
}

/** What an idle node's renewed poll takes from its last empty claim instead of reading. */
export interface IdleNode {
  node: PollingNode;
  free: Capacity | undefined;
}

/** What a poll keeps of its node's row while it waits: what its claims and its wait read. */
export type PollingNode = ClaimingAgent & { drain: boolean; capacity: Capacity | null };

/** The row's fields a poll reads, its strings the caller's own where they are equal (one copy per node, not two). */
function slim(n: PollingNode, caller: { nodeId: string; workspaceId: string }): PollingNode {
  const { labels, region, registered_with_key_id, key_has_quotas, drain, capacity } = n;
  const id = n.id === caller.nodeId ? caller.nodeId : n.id;
  const workspace_id = n.workspace_id === caller.workspaceId ? caller.workspaceId : n.workspace_id;
  const pool = n.pool === 'managed' ? 'managed' : n.pool === 'self' ? 'self' : n.pool;
  return { id, workspace_id, labels, pool, region, registered_with_key_id, key_has_quotas, drain, capacity };
}
