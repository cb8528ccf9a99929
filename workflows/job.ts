import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { declareVersioning } from './versioning';
import type { JobActivities } from '../activities/types';
import {
  type JobWorkflowInput,
  type ProjectJobInput,
  type Transition,
  assignUpdate,
  cancelSignal,
  cancelUpdate,
  recheckAgentSignal,
  stopSignal,
  resultUpdate,
  stateQuery,
  withdrawLeaseSignal,
} from './definitions';
import { type Answered, type Move, type Refusal, type Step, JobMachine } from './job-machine';
import { CANCELLED_IN_TEMPORAL } from './job-model';
import { HANDLER_DESCRIPTIONS } from './handler-descriptions';
import { AgentIdKey, JobStateKey } from './search-attributes';

// Projection and liveness checks retry until they succeed: PostgreSQL being down delays a job's
// read model, it never loses a transition.
const { projectJob, checkAttempt } = proxyActivities<JobActivities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '10s' },
});

// With Worker Versioning on, a job's run finishes on the build it started on: its history replays
// on that code alone, and a deploy changes new runs only. Changing code an open run replays on
// (a build that stays current, or an operator moving runs) still goes through patched().
declareVersioning('PINNED', job);

/** The patch marker a reset run records where it goes live (and takes its job's row over). */
const RESET_TAKEOVER = 'reset-takeover';
/** The event ID of a run's first WorkflowTaskStarted: its history's length in its first task. */
const FIRST_TASK_STARTED = 3;
/** The patch marker of a backoff that ended while its row was being written (see drive). */
const BACKOFF_ANNOUNCED = 'backoff-announced';

const refuse = (refusal: Refusal | null) => {
  if (refusal) throw ApplicationFailure.create({ ...refusal, nonRetryable: true });
};

/**
 * One job's life: one run from submit (or a manual retry) to a terminal state. The decisions are
 * JobMachine's; this function wires them to Temporal.
 *
 * Transitions that a caller waits on (assign, result, cancel) are Updates whose answer carries the
 * transition, and the caller writes the read model from it: the happy path schedules no activity.
 * Transitions the run makes on its own (a timeout, an agent loss, a drain deadline, the agent's
 * removal, the end of a backoff or of a cancel grace) are projected here, since nobody else sees
 * them. A failed or timed-out job closes its run as Failed, so the UI's status column tells the
 * truth.
 */
export async function job(input: JobWorkflowInput): Promise<Transition> {
  // Date.now() in a workflow is the time of the workflow task: the same again on replay.
  const m = new JobMachine(input, Date.now());
  // A reset run (Temporal's Reset) has a run ID of its own under the original run's started event;
  // known before any handler is set, since Updates reapplied by the reset arrive with the first.
  const { runId, originalExecutionRunId } = workflowInfo();
  if (runId !== originalExecutionRunId) m.wasReset(runId);

  const show = (move: Move | null) => {
    if (!move) return;
    const { from, to } = move;
    if (from.state !== to.state || from.agentId !== to.agentId) {
      upsertSearchAttributes([
        { key: JobStateKey, value: to.state },
        { key: AgentIdKey, value: to.agentId },
      ]);
    }
    // Shown on the run's page in the UI; kept in the run's metadata, not in its history.
    setCurrentDetails(`**${to.state}** · attempt ${to.attempt}${to.agentId ? ` · agent \`${to.agentId}\`` : ''}`);
  };
  const settle = ({ answer, move }: Answered) => {
    show(move);
    return answer;
  };

  const d = HANDLER_DESCRIPTIONS;
  setHandler(stateQuery, () => m.view(), { description: d.state });
  setHandler(assignUpdate, (a) => settle(m.assign(a, Date.now())), {
    validator: (a) => refuse(m.refuseAssign(a, Date.now())),
    description: d.assign,
  });
  setHandler(resultUpdate, (r) => settle(m.result(r, Date.now())), {
    validator: (r) => refuse(m.refuseResult(r)),
    description: d.result,
  });
  setHandler(cancelUpdate, () => settle(m.cancel(Date.now())), {
    validator: () => refuse(m.refuseCancel()),
    description: d.cancelUpdate,
  });
  // An operator's cancel from the Temporal UI: the run writes it, as it does a cancellation request.
  setHandler(cancelSignal, () => show(m.stop(CANCELLED_IN_TEMPORAL, Date.now())), { description: d.cancelSignal });
  setHandler(recheckAgentSignal, () => m.recheck(), { description: d.recheckAgent });
  setHandler(stopSignal, ({ reason }) => show(m.stop(reason, Date.now())), { description: d.stop });
  setHandler(withdrawLeaseSignal, ({ leaseId }) => show(m.withdrawLease(leaseId, Date.now())), {
    description: d.withdrawLease,
  });

  // A reset run replays the history it was reset from as that run made it; once it goes live,
  // which the patch marker records so that its own replays agree, it takes the job's row over.
  const takeOverOnceLive = () => {
    if (m.resetPhase === 'replaying' && patched(RESET_TAKEOVER)) m.takeOver();
  };

  // One timer at a time, for the deadline the run waits on now. It is cancelled when the run
  // moves on to wait for another, but left alone when the run completes: a completed run drops
  // its timers, and a cancelled one would cost a history event on every job.
  let timer: { at: number; scope: CancellationScope; fired: boolean } | undefined;
  /** Waits for a change of state (or a recheck) or until `at`; true when something changed. */
  const waitUntil = async (at: number): Promise<boolean> => {
    const version = m.version;
    if (timer && timer.at !== at && !timer.fired) timer.scope.cancel();
    if (!timer || timer.at !== at) {
      const armed = { at, scope: new CancellationScope(), fired: false };
      armed.scope
        .run(() => sleep(Math.max(1, at - Date.now())))
        .then(
          () => (armed.fired = true),
          () => undefined,
        );
      timer = armed;
    }
    const current = timer;
    await condition(() => (takeOverOnceLive(), m.changedSince(version) || current.fired));
    return m.changedSince(version);
  };

  const project = async (write: ProjectJobInput) => {
    const offsets = await projectJob(write);
    if (write.takeover) m.rebased(offsets ?? { version: 0, attempt: 0 }, write.snapshot.version);
    else m.projected(write.snapshot.version);
  };
  /** A cancelling or running job: its liveness check, a move of its own, or a wait. */
  const watch = async (step: Step) => {
    if (step.kind === 'check') {
      const after = m.checked(await checkAttempt(step.input), Date.now());
      if (!after) return;
      step = after;
    }
    if (step.kind === 'moved') show(step.move);
    else if (step.kind === 'wait') await waitUntil(step.until);
  };

  /** The run's loop: each step the machine asks for, until the job has ended and is written. */
  const drive = async () => {
    // A queued version written while its backoff still ran: that write woke no agent (projection.ts
    // wakes them only for a claimable row), so its backoff's end must be written again.
    let unannounced: number | undefined;
    // Keep each await as deep as it is: within one activation, an Update's answer and this loop's
    // next command are ordered by microtask ticks, and the recorded histories hold that order.
    for (
      let step = (takeOverOnceLive(), m.next(Date.now()));
      step.kind !== 'done';
      step = (takeOverOnceLive(), m.next(Date.now()))
    ) {
      if (step.kind === 'project') {
        const { snapshot } = step.write;
        if (snapshot.state === 'QUEUED' && Date.parse(snapshot.availableAt) > Date.now())
          unannounced = snapshot.version;
        await project(step.write);
      } else if (step.kind === 'idle' && unannounced === m.version && patched(BACKOFF_ANNOUNCED)) {
        // The backoff ended while that write was under way, so no timer will write its end: now.
        unannounced = undefined;
        show(m.backoffOver());
      } else if (step.kind === 'idle') {
        const version = m.version;
        await condition(() => (takeOverOnceLive(), m.version !== version || m.resetPhase === 'due'));
      } else if (step.kind === 'backoff') {
        // Backoff over: write the row again so waiting agents are woken and it is claimable.
        if (!(await waitUntil(step.until))) show(m.backoffOver());
      } else {
        await watch(step);
      }
    }
    await condition(allHandlersFinished);
  };
  try {
    // A worker rebuilding the run from its history (the one that held it died, or evicted it) gets
    // an Update of a later task in the run's first activation, with its start: the handler ran
    // inside setHandler above, before the loop. A replay of that history delivers the Update in an
    // activation of its own, to a run already waiting, where its answer goes before the loop's
    // next command: so here too. (An Update in the run's own first task, whose history starts with
    // it, comes with the start on replay as well, and keeps the order it always had.)
    if (workflowInfo().historyLength > FIRST_TASK_STARTED && runId === originalExecutionRunId && !allHandlersFinished())
      await condition(allHandlersFinished);
    await drive();
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancelled in Temporal (its UI, `temporal workflow cancel`, a batch): a cancel of the job,
    // which this run carries out and writes, shielded from the cancellation it answers. Its timer
    // went with the cancelled scope.
    timer = undefined;
    await CancellationScope.nonCancellable(async () => {
      show(m.stop(CANCELLED_IN_TEMPORAL, Date.now()));
      await drive();
    });
  }
  const { transition, failure } = m.final();
  if (failure) throw ApplicationFailure.create({ ...failure, nonRetryable: true, details: [transition] });
  return transition;
}
