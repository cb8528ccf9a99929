import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  defineUpdate,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { JobActivities } from '../../activities/types';
import {
  type AssignInput,
  type AttemptEnd,
  type JobSnapshot,
  type JobWorkflowInput,
  type ResultInput,
  REFUSAL,
  isTerminal,
  recheckAgentSignal,
  stateQuery,
  withdrawLeaseSignal,
} from '../definitions';
import { AgentIdKey, JobStateKey } from '../search-attributes';

// FROZEN: the job workflow as it ran before the `job` workflow replaced it (workflow ID
// `job-<jobId>`, a projection activity after every transition). Runs started by earlier releases
// finish on this code; its recorded histories in test/fixtures/histories/legacy hold it to that.
// Change nothing here; it can go once no such run can still be open.
const assignUpdate = defineUpdate<JobSnapshot, [AssignInput]>('assign');
const resultUpdate = defineUpdate<JobSnapshot, [ResultInput]>('result');
const cancelUpdate = defineUpdate<JobSnapshot, []>('cancel');

// Projection and liveness checks retry until they succeed: PostgreSQL being down delays a job's
// read model, it never loses a transition.
const { projectJob, checkAttempt } = proxyActivities<JobActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '10s' },
});

const now = () => Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const refuse = (type: string, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

/** One job's life: one run from submit (or a manual retry) to a terminal state. */
export async function jobWorkflow(input: JobWorkflowInput): Promise<JobSnapshot> {
  const { spec, timings } = input;
  let snap: JobSnapshot = {
    jobId: spec.jobId,
    state: 'QUEUED',
    attempt: input.attempt,
    leaseId: null,
    agentId: null,
    startedAt: null,
    finishedAt: null,
    exitCode: null,
    runtimeMs: null,
    failureReason: null,
    error: null,
    availableAt: iso(now()),
    version: input.manualRetry ? input.version + 1 : input.version,
  };
  let projected = input.version;
  let pendingEnds: AttemptEnd[] = [];
  let exitFailures = 0;
  let agentLosses = 0;
  let cancelRequestedAt = 0;
  let recheckRequested = false;
  let drainDeadlineAt: number | null = null;
  let nextAgentCheckAt = 0;
  // Results already applied, by lease: a repeated result answers the same, it never re-applies.
  const applied = new Map<string, { snap: JobSnapshot; agentId: string | null }>();
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
  };
  const endAttempt = (reason: AttemptEnd['reason'], kill: boolean, result?: ResultInput) => {
    if (snap.leaseId) pendingEnds.push({ leaseId: snap.leaseId, reason, kill, result });
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

  setHandler(stateQuery, () => ({ ...snap, spec }));

  setHandler(
    assignUpdate,
    ({ leaseId, agentId }: AssignInput) => {
      transition({ state: 'RUNNING', leaseId, agentId, startedAt: iso(now()) });
      nextAgentCheckAt = now() + timings.agentLostAfterMs;
      drainDeadlineAt = null;
      return snap;
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
      if (earlier) return earlier.snap;
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
      applied.set(result.leaseId, { snap, agentId });
      return snap;
    },
    {
      validator: (result: ResultInput) => {
        const otherAgent = (holder: string | null) => result.agentId !== undefined && result.agentId !== holder;
        const earlier = applied.get(result.leaseId);
        if (earlier) {
          if (otherAgent(earlier.agentId)) throw refuse(REFUSAL.notAssigned, 'lease was not handed to this agent');
          return;
        }
        const live = snap.state === 'RUNNING' || snap.state === 'CANCELLING';
        if (!live || result.leaseId !== snap.leaseId || otherAgent(snap.agentId))
          throw refuse(REFUSAL.notAssigned, 'lease does not hold the job');
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
        pendingEnds.push({ leaseId: snap.leaseId!, reason: 'cancelled', kill: true });
        transition({ state: 'CANCELLING' });
      }
      return snap;
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
    const ends = pendingEnds;
    pendingEnds = [];
    await projectJob({ snapshot: target, workspaceId: spec.workspaceId, attemptEnds: ends });
    projected = Math.max(projected, target.version);
  };

  /** Waits for a change of state or until `deadline`; true when something changed. */
  const waitForChange = (deadline: number) => {
    const version = snap.version;
    const changed = () => snap.version !== version || recheckRequested;
    return condition(changed, Math.max(1, deadline - now()));
  };

  const watchCancelling = async () => {
    // The agent confirms with its result; without one, the grace ends it.
    const graceAt = cancelRequestedAt + timings.cancelGraceMs;
    if (now() >= graceAt) return finish('CANCELLED');
    recheckRequested = false;
    await waitForChange(graceAt);
  };

  const watchRunning = async () => {
    if (recheckRequested || now() >= nextAgentCheckAt) {
      recheckRequested = false;
      const version = snap.version;
      const check = await checkAttempt({ leaseId: snap.leaseId!, lostAfterMs: timings.agentLostAfterMs });
      if (snap.version !== version) return;
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
    await waitForChange(Math.min(...deadlines));
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
    if (snap.version > projected || pendingEnds.length > 0) await project();
    if (snap.version > projected) continue;
    if (isTerminal(snap.state)) break;
    if (snap.state === 'QUEUED') {
      recheckRequested = false;
      const availableAt = Date.parse(snap.availableAt);
      if (availableAt > now()) {
        // Backoff over: project again so waiting agents are woken and the row is claimable.
        if (!(await waitForChange(availableAt))) transition({});
      } else {
        await condition(() => snap.state !== 'QUEUED');
      }
    } else if (snap.state === 'CANCELLING') {
      await watchCancelling();
    } else {
      await watchRunning();
    }
  }
  await condition(allHandlersFinished);
  return snap;
}
