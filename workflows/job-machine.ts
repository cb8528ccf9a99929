import type {
  AssignInput,
  AttemptCheck,
  AttemptEnd,
  JobSnapshot,
  JobSpec,
  JobTimings,
  JobWorkflowInput,
  Rebase,
  ResultInput,
  StopReason,
  Transition,
} from './job-model';
import { REFUSAL, RUN_FAILURE, isLive, isTerminal, queuedSnapshot } from './job-model';
import type { Answered, Move, Refusal, RunEnd, Step } from './job-steps';

// The job's state machine (CONTRACT §2) as a plain class: no Temporal, no clock. Each method takes
// the time as `now` (epoch ms) and says what the run must do rather than doing it, so the workflow
// (job.ts) is left with the timers, the activities and the search attributes, and every
// transition and refusal is testable in milliseconds (test/unit/job-state-*.test.ts).

const iso = (ms: number) => new Date(ms).toISOString();

export type { Answered, Move, Refusal, RunEnd, Step } from './job-steps';

export class JobMachine {
  private readonly spec: JobSpec;
  private readonly timings: JobTimings;
  private snap: JobSnapshot;
  // The newest version whose write is someone's duty: ours for the run's own transitions, the
  // Update's caller for the others. A manual retry's QUEUED state is written by the run first.
  private written: number;
  private readonly ends: AttemptEnd[] = [];
  private exitFailures = 0;
  private agentLosses = 0;
  private cancelRequestedAt = 0;
  private recheckRequested = false;
  private drainDeadlineAt: number | null = null;
  private nextAgentCheckAt = 0;
  /** The version a liveness check was asked at: its answer is stale once the job moved. */
  private checkedAt = -1;
  // Results already applied, by lease: a repeated result answers the same, it never re-applies.
  private readonly applied = new Map<string, { answer: Transition; agentId: string | null }>();
  // Leases whose assignment never reached an agent: never assigned, or requeued when they were.
  private readonly withdrawn = new Set<string>();
  // A reset run: replaying the run it was reset from, then due to write the row over, then done.
  private takeover: { runId: string; phase: 'replaying' | 'due' | 'done' } | null = null;

  constructor(input: JobWorkflowInput, now: number) {
    this.spec = input.spec;
    this.timings = input.timings;
    this.snap = queuedSnapshot(input, iso(now));
    this.written = input.version;
  }

  get snapshot(): JobSnapshot {
    return this.snap;
  }

  get version(): number {
    return this.snap.version;
  }

  /** What the `state` query answers. */
  view(): JobSnapshot & { spec: JobSpec; ends: AttemptEnd[] } {
    return { ...this.snap, spec: this.spec, ends: this.ends };
  }

  /** The job moved, or a recheck of its agent was asked, since `version`. */
  changedSince(version: number): boolean {
    return this.snap.version !== version || this.recheckRequested || this.resetPhase === 'due';
  }

  refuseAssign({ leaseId }: AssignInput, now: number): Refusal | null {
    if (this.withdrawn.has(leaseId)) return { type: REFUSAL.invalidState, message: 'the assignment was withdrawn' };
    if (this.takeover && this.takeover.phase !== 'done')
      return { type: REFUSAL.invalidState, message: 'the run was reset and is taking its job over' };
    if (this.snap.state !== 'QUEUED') return { type: REFUSAL.invalidState, message: `job is ${this.snap.state}` };
    if (Date.parse(this.snap.availableAt) > now)
      return { type: REFUSAL.invalidState, message: 'job is waiting out a backoff' };
    return null;
  }

  /** An agent's poll took the job; call only once `refuseAssign` found nothing to refuse. */
  assign({ leaseId, agentId }: AssignInput, now: number): Answered {
    const move = this.move({ state: 'RUNNING', leaseId, agentId, startedAt: iso(now) });
    this.nextAgentCheckAt = now + this.timings.agentLostAfterMs;
    this.drainDeadlineAt = null;
    return { answer: this.answer(null), move };
  }

  refuseResult(result: ResultInput): Refusal | null {
    const otherAgent = (holder: string | null) => result.agentId !== undefined && result.agentId !== holder;
    const earlier = this.applied.get(result.leaseId);
    if (earlier)
      return otherAgent(earlier.agentId)
        ? { type: REFUSAL.notAssigned, message: 'lease was not handed to this agent' }
        : null;
    if (!isLive(this.snap.state) || result.leaseId !== this.snap.leaseId || otherAgent(this.snap.agentId)) {
      return { type: REFUSAL.notAssigned, message: 'lease does not hold the job' };
    }
    return null;
  }

  /** The agent's result for its lease; call only once `refuseResult` found nothing to refuse. */
  result(result: ResultInput, now: number): Answered {
    const earlier = this.applied.get(result.leaseId);
    if (earlier) return { answer: earlier.answer, move: null };
    const agentId = this.snap.agentId;
    this.endAttempt('result', false, now, result);
    const outcome = { exitCode: result.exitCode, runtimeMs: result.runtimeMs, error: result.error ?? null };
    let move: Move;
    if (this.snap.state === 'CANCELLING') {
      move = this.finish('CANCELLED', now, outcome);
    } else if (result.exitCode === 0 && !result.error) {
      move = this.finish('SUCCEEDED', now, outcome);
    } else if (++this.exitFailures < this.spec.retry.maxAttempts) {
      move = this.requeue(this.spec.retry.backoffSeconds * 1000 * 2 ** (this.exitFailures - 1), now);
    } else {
      move = this.finish('FAILED', now, {
        ...outcome,
        failureReason: result.outOfMemory ? 'out_of_memory' : result.error ? 'agent_error' : 'exit_code',
      });
    }
    const answer = this.answer(result.leaseId);
    this.applied.set(result.leaseId, { answer, agentId });
    return { answer, move };
  }

  refuseCancel(): Refusal | null {
    return isTerminal(this.snap.state)
      ? { type: REFUSAL.invalidState, message: `job is already ${this.snap.state}` }
      : null;
  }

  /** Queued: cancelled at once. Running: cancelling, the agent told to kill it. Cancelling: as it is. */
  cancel(now: number): Answered {
    const move = this.cancelMove(now);
    return { answer: this.answer(this.snap.leaseId), move };
  }

  /** The service's own cancel, `reason` its failureReason: nobody waits on it, the run writes it. */
  stop(reason: StopReason, now: number): Move | null {
    return this.refuseCancel() ? null : this.cancelMove(now, { failureReason: reason });
  }

  /** The assignment of `leaseId` never reached its agent: requeue without counting a loss, refuse it later. */
  withdrawLease(leaseId: string, now: number): Move | null {
    this.withdrawn.add(leaseId);
    if (this.snap.leaseId !== leaseId || this.applied.has(leaseId)) return null;
    if (this.snap.state === 'RUNNING') {
      this.endAttempt('undelivered', false, now);
      return this.requeue(0, now);
    }
    if (this.snap.state === 'CANCELLING') return this.finish('CANCELLED', now);
    return null;
  }

  /** The agent's drain deadline changed: check it now rather than at the next liveness check. */
  recheck(): void {
    this.recheckRequested = true;
  }

  /**
   * This run is a reset (Temporal's Reset) of an earlier one, whose history it replays first. Until
   * its takeover is written it assigns nothing: an assignment reapplied from after the reset
   * point belongs to the attempt the takeover fences (validators do not run on replay, so the
   * replayed ones stand).
   */
  wasReset(runId: string): void {
    this.takeover = { runId, phase: 'replaying' };
  }

  /** Where a reset run is: replaying the run it was reset from, due to write its takeover, or done. */
  get resetPhase(): 'replaying' | 'due' | 'done' | null {
    return this.takeover?.phase ?? null;
  }

  /** The reset run has gone live: the row was written by the run it was reset from, ahead of this one. */
  takeOver(): void {
    if (this.takeover) this.takeover.phase = 'due';
  }

  /** The takeover wrote the row at `wrote` (this run's version then) plus the offsets it answered. */
  rebased(offsets: Rebase, wrote: number): void {
    if (this.takeover) this.takeover.phase = 'done';
    this.snap = {
      ...this.snap,
      version: this.snap.version + offsets.version,
      attempt: this.snap.attempt + offsets.attempt,
    };
    this.written = wrote + offsets.version;
  }

  next(now: number): Step {
    if (this.takeover?.phase === 'due') {
      const { runId } = this.takeover;
      return {
        kind: 'project',
        write: {
          snapshot: this.snap,
          workspaceId: this.spec.workspaceId,
          attemptEnds: [...this.ends],
          takeover: { runId },
        },
      };
    }
    if (this.snap.version > this.written) {
      // Every end of the run: writing them again is harmless, and a lost write is made good.
      return {
        kind: 'project',
        write: { snapshot: this.snap, workspaceId: this.spec.workspaceId, attemptEnds: [...this.ends] },
      };
    }
    if (isTerminal(this.snap.state)) return { kind: 'done' };
    if (this.snap.state === 'QUEUED') {
      this.recheckRequested = false;
      const availableAt = Date.parse(this.snap.availableAt);
      return availableAt > now ? { kind: 'backoff', until: availableAt } : { kind: 'idle' };
    }
    if (this.snap.state === 'CANCELLING') {
      // The agent confirms with its result; without one, the grace ends it.
      const graceAt = this.cancelRequestedAt + this.timings.cancelGraceMs;
      if (now >= graceAt) return { kind: 'moved', move: this.finish('CANCELLED', now) };
      this.recheckRequested = false;
      return { kind: 'wait', until: graceAt };
    }
    if (this.recheckRequested || now >= this.nextAgentCheckAt) {
      this.recheckRequested = false;
      this.checkedAt = this.snap.version;
      return { kind: 'check', input: { leaseId: this.snap.leaseId!, lostAfterMs: this.timings.agentLostAfterMs } };
    }
    return this.watchRunning(now);
  }

  /**
   * The answer of a `check` step; null when the job moved while it was out (ask `next` again). A
   * removed agent requeues at once and is not counted as a loss.
   */
  checked(check: AttemptCheck, now: number): Step | null {
    if (this.snap.version !== this.checkedAt) return null;
    if (check.deregistered) {
      this.endAttempt('deregistered', true, now);
      return { kind: 'moved', move: this.requeue(0, now) };
    }
    this.drainDeadlineAt = check.msUntilDrainDeadline === null ? null : now + check.msUntilDrainDeadline;
    this.nextAgentCheckAt = now + Math.max(check.msUntilLost, 0);
    if (check.msUntilLost > 0) return this.watchRunning(now);
    this.endAttempt('agent_lost', true, now);
    const move =
      ++this.agentLosses >= this.timings.agentLossMaxAttempts
        ? this.finish('FAILED', now, { failureReason: 'agent_lost' })
        : this.requeue(this.timings.agentLossBackoffMs * 2 ** (this.agentLosses - 1), now);
    return { kind: 'moved', move };
  }

  /** A backoff ran out with nothing else happening: written again so waiting agents are woken and it is claimable. */
  backoffOver(): Move {
    return this.move({});
  }

  /** A write of the read model up to `version` is done. */
  projected(version: number): void {
    this.written = Math.max(this.written, version);
  }

  final(): RunEnd {
    const transition: Transition = { snapshot: this.snap, ends: this.ends };
    const { state, failureReason } = this.snap;
    if (state !== 'FAILED' && state !== 'TIMED_OUT') return { transition, failure: null };
    const type = state === 'FAILED' ? RUN_FAILURE.failed : RUN_FAILURE.timedOut;
    return { transition, failure: { type, message: `job ${state.toLowerCase().replace('_', ' ')}: ${failureReason}` } };
  }

  private watchRunning(now: number): Step {
    if (this.drainDeadlineAt !== null && now >= this.drainDeadlineAt) {
      this.endAttempt('drain_deadline', true, now);
      return { kind: 'moved', move: this.requeue(0, now) };
    }
    const timeoutAt = Date.parse(this.snap.startedAt!) + this.spec.timeoutSeconds * 1000;
    if (now >= timeoutAt) {
      this.endAttempt('timeout', true, now);
      return { kind: 'moved', move: this.finish('TIMED_OUT', now, { failureReason: 'timeout' }) };
    }
    const deadlines = [this.nextAgentCheckAt, timeoutAt];
    if (this.drainDeadlineAt !== null) deadlines.push(this.drainDeadlineAt);
    return { kind: 'wait', until: Math.min(...deadlines) };
  }

  private move(changes: Partial<JobSnapshot>): Move {
    const from = this.snap;
    this.snap = { ...from, ...changes, version: from.version + 1 };
    return { from, to: this.snap };
  }

  private cancelMove(now: number, changes: Partial<JobSnapshot> = {}): Move | null {
    if (this.snap.state === 'QUEUED') return this.finish('CANCELLED', now, changes);
    if (this.snap.state !== 'RUNNING') return null;
    this.cancelRequestedAt = now;
    this.endAttempt('cancelled', true, now);
    return this.move({ state: 'CANCELLING', ...changes });
  }

  private endAttempt(reason: AttemptEnd['reason'], kill: boolean, now: number, result?: ResultInput): void {
    if (this.snap.leaseId)
      this.ends.push({ leaseId: this.snap.leaseId, reason, kill, at: iso(now), ...(result && { result }) });
  }

  private finish(state: JobSnapshot['state'], now: number, changes: Partial<JobSnapshot> = {}): Move {
    const runtimeMs = this.snap.startedAt ? now - Date.parse(this.snap.startedAt) : null;
    return this.move({ state, finishedAt: iso(now), runtimeMs, ...changes });
  }

  private requeue(backoffMs: number, now: number): Move {
    return this.move({
      state: 'QUEUED',
      attempt: this.snap.attempt + 1,
      leaseId: null,
      agentId: null,
      startedAt: null,
      exitCode: null,
      runtimeMs: null,
      error: null,
      availableAt: iso(now + backoffMs),
    });
  }

  /** The answer of an Update: its caller writes it, so this run does not. */
  private answer(leaseId: string | null): Transition {
    this.written = Math.max(this.written, this.snap.version);
    return { snapshot: this.snap, ends: this.ends.filter((e) => e.leaseId === leaseId) };
  }
}
