import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { JobActivities } from '../activities/types';
import {
  type AssignInput,
  type AttemptEnd,
  type JobSnapshot,
  type JobWorkflowInput,
  type ResultInput,
  type Transition,
  REFUSAL,
  RUN_FAILURE,
  assignUpdate,
  cancelUpdate,
  isLive,
  isTerminal,
  queuedSnapshot,
  recheckAgentSignal,
  resultUpdate,
  stateQuery,
  withdrawLeaseSignal,
} from './definitions';
import { AgentIdKey, JobStateKey } from './search-attributes';

// Projection and liveness checks retry until they succeed: PostgreSQL being down delays a job's
// read model, it never loses a transition.
const { projectJob, checkAttempt } = proxyActivities<JobActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '10s' },
});

const now = () => Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const refuse = (type: string, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

/**
 * One job's life: one run from submit (or a manual retry) to a terminal state.
 *
 * Transitions that a caller waits on (assign, result, cancel) are Updates whose answer carries the
 * transition, and the caller writes the read model from it: the happy path schedules no activity.
 * Transitions the run makes on its own (a timeout, an agent loss, a drain deadline, the agent's
 * removal, the end of a backoff or of a cancel grace) are projected here, since nobody else sees
 * them. A failed or timed-out job closes its run as Failed, so the UI's status column tells the
 * truth.
 */
export async function job(input: JobWorkflowInput): Promise<Transition> {
  const { spec, timings } = input;
  let snap: JobSnapshot = queuedSnapshot(input, iso(now()));
  // The newest version whose write is someone's duty: ours for the run's own transitions, the
  // Update's caller for the others. A manual retry's QUEUED state is written here first.
  let written = input.version;
  const ends: AttemptEnd[] = [];
  let exitFailures = 0;
  let agentLosses = 0;
  let cancelRequestedAt = 0;
  let recheckRequested = false;
  let drainDeadlineAt: number | null = null;
  let nextAgentCheckAt = 0;
  // Results already applied, by lease: a repeated result answers the same, it never re-applies.
  const applied = new Map<string, { answer: Transition; agentId: string | null }>();
  // Leases whose assignment never reached an agent: never assigned, or requeued when they were.
  const withdrawn = new Set<string>();

  const transition = (changes: Partial<JobSnapshot>) => {
    const before = snap;
    snap = { ...snap, ...changes, version: snap.version + 1 };
    if (before.state !== snap.state || before.agentId !== snap.agentId) {
      upsertSearchAttributes([
        { key: JobStateKey, value: snap.state },
        { key: AgentIdKey, value: snap.agentId },
      ]);
    }
    // Shown on the run's page in the UI; kept in the run's metadata, not in its history.
    setCurrentDetails(`**${snap.state}** · attempt ${snap.attempt}${snap.agentId ? ` · agent \`${snap.agentId}\`` : ''}`);
  };
  const endAttempt = (reason: AttemptEnd['reason'], kill: boolean, result?: ResultInput) => {
    if (snap.leaseId) ends.push({ leaseId: snap.leaseId, reason, kill, ...(result && { result }) });
  };
  const finish = (state: JobSnapshot['state'], changes: Partial<JobSnapshot> = {}) => {
    const runtimeMs = snap.startedAt ? now() - Date.parse(snap.startedAt) : null;
    transition({ state, finishedAt: iso(now()), runtimeMs, ...changes });
  };
  const requeue = (backoffMs: number) =>
    transition({
      state: 'QUEUED',
      attempt: snap.attempt + 1,
      leaseId: null,
      agentId: null,
      startedAt: null,
      exitCode: null,
      runtimeMs: null,
      error: null,
      availableAt: iso(now() + backoffMs),
    });
  /** The answer of an Update: the caller writes it, so this run does not. */
  const answer = (leaseId: string | null): Transition => {
    written = Math.max(written, snap.version);
    return { snapshot: snap, ends: ends.filter((e) => e.leaseId === leaseId) };
  };

  setHandler(stateQuery, () => ({ ...snap, spec, ends }));

  setHandler(
    assignUpdate,
    ({ leaseId, agentId }: AssignInput) => {
      transition({ state: 'RUNNING', leaseId, agentId, startedAt: iso(now()) });
      nextAgentCheckAt = now() + timings.agentLostAfterMs;
      drainDeadlineAt = null;
      return answer(null);
    },
    {
      validator: (input: AssignInput) => {
        if (withdrawn.has(input.leaseId)) throw refuse(REFUSAL.invalidState, 'the assignment was withdrawn');
        if (snap.state !== 'QUEUED') throw refuse(REFUSAL.invalidState, `job is ${snap.state}`);
        if (Date.parse(snap.availableAt) > now()) throw refuse(REFUSAL.invalidState, 'job is waiting out a backoff');
      },
    },
  );

  setHandler(
    resultUpdate,
    (result: ResultInput) => {
      const earlier = applied.get(result.leaseId);
      if (earlier) return earlier.answer;
      const agentId = snap.agentId;
      endAttempt('result', false, result);
      const outcome = { exitCode: result.exitCode, runtimeMs: result.runtimeMs, error: result.error ?? null };
      if (snap.state === 'CANCELLING') {
        finish('CANCELLED', outcome);
      } else if (result.exitCode === 0 && !result.error) {
        finish('SUCCEEDED', outcome);
      } else if (++exitFailures < spec.retry.maxAttempts) {
        requeue(spec.retry.backoffSeconds * 1000 * 2 ** (exitFailures - 1));
      } else {
        finish('FAILED', { ...outcome, failureReason: result.error ? 'agent_error' : 'exit_code' });
      }
      const reply = answer(result.leaseId);
      applied.set(result.leaseId, { answer: reply, agentId });
      return reply;
    },
    {
      validator: (result: ResultInput) => {
        const otherAgent = (holder: string | null) => result.agentId !== undefined && result.agentId !== holder;
        const earlier = applied.get(result.leaseId);
        if (earlier) {
          if (otherAgent(earlier.agentId)) throw refuse(REFUSAL.notAssigned, 'lease was not handed to this agent');
          return;
        }
        if (!isLive(snap.state) || result.leaseId !== snap.leaseId || otherAgent(snap.agentId)) throw refuse(REFUSAL.notAssigned, 'lease does not hold the job');
      },
    },
  );

  setHandler(
    cancelUpdate,
    () => {
      if (snap.state === 'QUEUED') {
        finish('CANCELLED');
      } else if (snap.state === 'RUNNING') {
        cancelRequestedAt = now();
        endAttempt('cancelled', true);
        transition({ state: 'CANCELLING' });
      }
      return answer(snap.leaseId);
    },
    {
      validator: () => {
        if (isTerminal(snap.state)) throw refuse(REFUSAL.invalidState, `job is already ${snap.state}`);
      },
    },
  );

  setHandler(recheckAgentSignal, () => {
    recheckRequested = true;
  });

  setHandler(withdrawLeaseSignal, ({ leaseId }) => {
    withdrawn.add(leaseId);
    if (snap.leaseId !== leaseId || applied.has(leaseId)) return;
    if (snap.state === 'RUNNING') {
      endAttempt('undelivered', false);
      requeue(0);
    } else if (snap.state === 'CANCELLING') {
      finish('CANCELLED');
    }
  });

  const project = async () => {
    const target = snap;
    // Every end of the run: writing them again is harmless, and a lost write is made good.
    await projectJob({ snapshot: target, workspaceId: spec.workspaceId, attemptEnds: [...ends] });
    written = Math.max(written, target.version);
  };

  // One timer at a time, for the deadline the run waits on now. It is cancelled when the run
  // moves on to wait for another, but left alone when the run completes: a completed run drops
  // its timers, and a cancelled one would cost a history event on every job.
  let timer: { at: number; scope: CancellationScope; fired: boolean } | undefined;
  /** Waits for a change of state or until `at`; true when something changed. */
  const waitUntil = async (at: number): Promise<boolean> => {
    const version = snap.version;
    const changed = () => snap.version !== version || recheckRequested;
    if (timer && timer.at !== at && !timer.fired) timer.scope.cancel();
    if (!timer || timer.at !== at) {
      const armed = { at, scope: new CancellationScope(), fired: false };
      armed.scope.run(() => sleep(Math.max(1, at - now()))).then(
        () => (armed.fired = true),
        () => undefined,
      );
      timer = armed;
    }
    const current = timer;
    await condition(() => changed() || current.fired);
    return changed();
  };

  const watchCancelling = async () => {
    // The agent confirms with its result; without one, the grace ends it.
    const graceAt = cancelRequestedAt + timings.cancelGraceMs;
    if (now() >= graceAt) return finish('CANCELLED');
    recheckRequested = false;
    await waitUntil(graceAt);
  };

  const watchRunning = async () => {
    if (recheckRequested || now() >= nextAgentCheckAt) {
      recheckRequested = false;
      const version = snap.version;
      const check = await checkAttempt({ leaseId: snap.leaseId!, lostAfterMs: timings.agentLostAfterMs });
      if (snap.version !== version) return;
      if (check.deregistered) {
        endAttempt('deregistered', true);
        return requeue(0);
      }
      drainDeadlineAt = check.msUntilDrainDeadline === null ? null : now() + check.msUntilDrainDeadline;
      nextAgentCheckAt = now() + Math.max(check.msUntilLost, 0);
      if (check.msUntilLost <= 0) return onAgentLost();
    }
    if (drainDeadlineAt !== null && now() >= drainDeadlineAt) {
      endAttempt('drain_deadline', true);
      return requeue(0);
    }
    const timeoutAt = Date.parse(snap.startedAt!) + spec.timeoutSeconds * 1000;
    if (now() >= timeoutAt) {
      endAttempt('timeout', true);
      return finish('TIMED_OUT', { failureReason: 'timeout' });
    }
    const deadlines = [nextAgentCheckAt, timeoutAt];
    if (drainDeadlineAt !== null) deadlines.push(drainDeadlineAt);
    await waitUntil(Math.min(...deadlines));
  };

  const onAgentLost = () => {
    endAttempt('agent_lost', true);
    if (++agentLosses >= timings.agentLossMaxAttempts) {
      finish('FAILED', { failureReason: 'agent_lost' });
    } else {
      requeue(timings.agentLossBackoffMs * 2 ** (agentLosses - 1));
    }
  };

  for (;;) {
    if (snap.version > written) await project();
    if (snap.version > written) continue;
    if (isTerminal(snap.state)) break;
    if (snap.state === 'QUEUED') {
      recheckRequested = false;
      const availableAt = Date.parse(snap.availableAt);
      if (availableAt > now()) {
        // Backoff over: write the row again so waiting agents are woken and it is claimable.
        if (!(await waitUntil(availableAt))) transition({});
      } else {
        const version = snap.version;
        await condition(() => snap.version !== version);
      }
    } else if (snap.state === 'CANCELLING') {
      await watchCancelling();
    } else {
      await watchRunning();
    }
  }
  await condition(allHandlersFinished);
  const final: Transition = { snapshot: snap, ends };
  if (snap.state === 'FAILED' || snap.state === 'TIMED_OUT') {
    const type = snap.state === 'FAILED' ? RUN_FAILURE.failed : RUN_FAILURE.timedOut;
    throw ApplicationFailure.create({ type, message: `job ${snap.state.toLowerCase().replace('_', ' ')}: ${snap.failureReason}`, nonRetryable: true, details: [final] });
  }
  return final;
}
