import type { Logger } from 'pino';
import type { Transition } from '../../workflows/definitions';
import { AppError } from '../shared/errors';
import { newId } from '../shared/ids';
import { contextOf, inSpan, linkToActive, traceparentOf } from '../telemetry/tracing';
import { type JobWorkflowClient, WorkflowClosedError } from '../temporal/job-workflow-client';
import { snapshotColumns } from './projection';
import { type Job, jobFromRow } from './record';
import type { ReservedRow } from './reservations';
import type { Transitions } from './transitions';

// Asking a reserved job's run to hand it to an agent (its assign Update), and taking an
// assignment back that nobody will hear of. No database here: src/jobs/dispatch.ts reserves and
// writes.

export interface Assignment {
  job: Job;
  leaseId: string;
  /** The hand-out span's `traceparent`: the agent's run of the attempt is its child. */
  traceparent?: string;
}

/** What one hand-out came to: a job taken, an Update that failed, or the run's refusal. */
export type Outcome = { handing: Handing } | { failed?: HandOutFailed };

export const outcomeOf = (p: Promise<Handing>): Promise<Outcome> =>
  p.then(
    (handing) => ({ handing }),
    (err: unknown) => (err instanceof HandOutFailed ? { failed: err } : {}),
  );

/**
 * The outcomes, once all have one, or once `held` resolves after the first job was taken: those
 * still under way then are undefined.
 */
export function untilAllOrHeld(outcomes: Array<Promise<Outcome>>, held?: () => Promise<unknown>) {
  const now: Array<Outcome | undefined> = outcomes.map(() => undefined);
  return new Promise<typeof now>((resolve) => {
    let left = outcomes.length;
    if (left === 0) return resolve(now);
    let holding = false;
    outcomes.forEach((p, i) =>
      p.then((outcome) => {
        now[i] = outcome;
        if (--left === 0) return resolve(now);
        if ('handing' in outcome && held && !holding) {
          holding = true;
          void held().then(() => resolve(now.slice()));
        }
      }),
    );
  });
}

/** An assignment its run made, its write still to come. */
export interface Handing {
  assignment: Assignment;
  workspaceId: string;
  t: Transition;
}

/** An Update that failed other than by the run's refusal: its lease may have been taken. */
export class HandOutFailed extends Error {
  constructor(
    readonly leaseId: string,
    override readonly cause: unknown,
  ) {
    super('hand-out failed');
  }
}

/** One reserved job's `assign` Update, in a span of the job's trace (its parent the submit), linked to the poll. */
export async function handOut(
  transitions: Pick<Transitions, 'assign'>,
  agent: { id: string },
  row: ReservedRow,
): Promise<Handing> {
  const leaseId = newId('lease');
  try {
    return await inSpan(
      'job.hand-out',
      { 'job.id': row.id, 'agent.id': agent.id },
      async (span) => {
        // The job's workspace: a managed-pool agent's own is the operator's, not the job's.
        const t = await transitions.assign(row.id, row.workspace_id, { leaseId, agentId: agent.id });
        const job = jobFromRow({ ...row, ...snapshotColumns(t.snapshot) });
        span?.setAttribute('job.attempt', job.attempt);
        return { assignment: { job, leaseId, traceparent: traceparentOf() }, workspaceId: row.workspace_id, t };
      },
      contextOf(row.trace_parent as string | null),
      linkToActive(),
    );
  } catch (err) {
    if (err instanceof AppError && err.code === 'job.invalid_state') throw err;
    throw new HandOutFailed(leaseId, err);
  }
}

const WITHDRAW_TRIES = 8;

/** Keeps trying for about a minute: an outage that hid the Update's answer may hide this too. */
export function withdrawInBackground(workflows: JobWorkflowClient, jobId: string, leaseId: string, log: Logger): void {
  void (async () => {
    for (let i = 0; i < WITHDRAW_TRIES; i++) {
      try {
        await workflows.withdrawLease(jobId, leaseId);
        return;
      } catch (err) {
        if (err instanceof WorkflowClosedError) return;
        await new Promise((r) => setTimeout(r, Math.min(1000 * 2 ** i, 10_000)));
      }
    }
    log.warn(
      { jobId, leaseId },
      'could not withdraw an unconfirmed assignment; the job counts an agent loss if it applied',
    );
  })();
}
