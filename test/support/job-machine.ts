import assert from 'node:assert/strict';
import { type Answered, type Move, type Step, JobMachine } from '../../workflows/job-machine';
import type {
  AssignInput,
  AttemptCheck,
  JobSpec,
  JobState,
  JobTimings,
  ProjectJobInput,
  ResultInput,
} from '../../workflows/job-model';

// The plain job state machine (CONTRACT §2) driven as the workflow drives it, with a clock that is
// just a number: what test/unit/job-state-*.test.ts share.

export const T0 = Date.parse('2026-11-21T10:00:00.000Z');
export const S = 1000;
export const iso = (ms: number) => new Date(ms).toISOString();
/** The contract's durations: agent lost after 90 s, 30 s cancel grace, three losses at most. */
export const TIMINGS: JobTimings = {
  agentLostAfterMs: 90 * S,
  cancelGraceMs: 30 * S,
  agentLossBackoffMs: 10 * S,
  agentLossMaxAttempts: 3,
};

export function machine(
  spec: Partial<JobSpec> = {},
  more: { timings?: Partial<JobTimings>; attempt?: number; version?: number; manualRetry?: boolean } = {},
) {
  return new JobMachine(
    {
      spec: {
        jobId: 'job_unit',
        workspaceId: 'ws_unit',
        type: 'COMMAND',
        command: 'true',
        labels: {},
        timeoutSeconds: 3600,
        retry: { maxAttempts: 1, backoffSeconds: 10 },
        createdAt: iso(T0),
        ...spec,
      },
      timings: { ...TIMINGS, ...more.timings },
      attempt: more.attempt ?? 1,
      version: more.version ?? 1,
      ...(more.manualRetry && { manualRetry: true }),
    },
    T0,
  );
}

export const lease = (n: number, agentId = 'agent_1'): AssignInput => ({ leaseId: `lease-${n}`, agentId });

/** An Update as Temporal runs it: the validator, then (if it refused nothing) the handler. */
export function assign(m: JobMachine, input: AssignInput, now: number): Answered {
  assert.equal(m.refuseAssign(input, now), null);
  return m.assign(input, now);
}
export function result(m: JobMachine, now: number, r: Partial<ResultInput> & { leaseId: string }): Answered {
  const input = { exitCode: 0, runtimeMs: 1234, ...r };
  assert.equal(m.refuseResult(input), null);
  return m.result(input, now);
}
export function cancel(m: JobMachine, now: number): Answered {
  assert.equal(m.refuseCancel(), null);
  return m.cancel(now);
}

/**
 * The run's own steps at `now`, as the workflow makes them: writes (each reported done), shown
 * moves, liveness checks answered with `check`, up to the step it waits on (or a check with no
 * answer given).
 */
export function run(
  m: JobMachine,
  now: number,
  check?: AttemptCheck,
): { writes: ProjectJobInput[]; moves: Move[]; step: Step } {
  const writes: ProjectJobInput[] = [];
  const moves: Move[] = [];
  let step = m.next(now);
  for (;;) {
    if (step.kind === 'project') {
      writes.push(step.write);
      m.projected(step.write.snapshot.version);
    } else if (step.kind === 'moved') {
      moves.push(step.move);
    } else if (step.kind === 'check' && check) {
      step = m.checked(check, now) ?? m.next(now);
      check = undefined;
      continue;
    } else {
      return { writes, moves, step };
    }
    step = m.next(now);
  }
}

export const alive: AttemptCheck = { msUntilLost: TIMINGS.agentLostAfterMs, msUntilDrainDeadline: null };
export const lost: AttemptCheck = { msUntilLost: 0, msUntilDrainDeadline: null };
export const reasons = (m: JobMachine) => m.view().ends.map((e) => [e.leaseId, e.reason, e.kill]);
export const stateOf = (m: JobMachine): JobState => m.snapshot.state;
