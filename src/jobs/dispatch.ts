import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { assignmentAllowance } from '../auth/quotas';
import { coverNextAttempt } from '../billing/gate';
import { snapshotColumns } from './projection';
import { type ReservingAgent, releaseReservation, reserveSome } from './reservations';
import type { Transitions } from './transitions';
import type { RideAlong } from '../db/one-trip';
import type { Transition } from '../../workflows/definitions';
import { type Job, jobFromRow } from './record';
import { AppError } from '../shared/errors';
import { newId } from '../shared/ids';
import { type JobWorkflowClient, WorkflowClosedError } from '../temporal/job-workflow-client';
import { contextOf, inSpan, linkToActive, traceparentOf } from '../telemetry/tracing';

export interface Assignment {
  job: Job;
  leaseId: string;
  /** The hand-out span's `traceparent`: the agent's run of the attempt is its child. */
  traceparent?: string;
}

export interface ClaimingAgent extends ReservingAgent {
  registered_with_key_id: string | null;
  key_has_quotas?: boolean;
}

export interface ClaimOptions {
  /** How long a reservation keeps other pollers off the row; longer than an Update's call budget. */
  reservationSeconds: number;
  workflows: JobWorkflowClient;
  log: Logger;
}

/**
 * Takes the best claimable jobs for an agent, up to `limit`: highest priority, then oldest,
 * matching its labels (for a managed-pool agent: one job, across the workspaces of its region in
 * turn, see reservations.ts).
 *
 * The rows are first reserved for the agent in a statement of their own (SKIP LOCKED, so pollers
 * pass over each other), and only then are the jobs' workflows asked, through their `assign`
 * Updates, all at once and with no database connection held: a slow or absent worker cannot
 * drain the pool. A refusal (cancelled meanwhile) moves on to the next rows.
 *
 * Once the workflows have assigned the jobs, the read model's writes (one transaction, its commit
 * not waiting for the disk: see transitions.written) go before the answer, so whoever asks the
 * read model whether a node holds a job (heartbeat, log push, artifact upload) finds it. Should
 * the write fail, the reconciler repairs the rows from the workflows. An Update that fails
 * otherwise has its lease withdrawn; the error is thrown only when no job was taken. Once one job
 * is taken, the others' Updates are waited for only until `held` (its agent's loss clock is
 * running): one that answers later is written, then withdrawn, nobody being told of it.
 * `settled` is called once every Update it sent has its answer, the late ones too.
 */
export async function claimSome(
  db: Knex,
  transitions: Transitions,
  agent: ClaimingAgent,
  skip: string[],
  o: ClaimOptions,
  batch: Batch = { limit: 1 },
): Promise<Assignment[]> {
  const sent: Array<Promise<unknown>> = [];
  try {
    return await claimBatch(db, transitions, agent, skip, o, batch, sent);
  } finally {
    if (batch.settled) void Promise.allSettled(sent).then(batch.settled);
  }
}

async function claimBatch(
  db: Knex,
  transitions: Transitions,
  agent: ClaimingAgent,
  skip: string[],
  o: ClaimOptions,
  { limit, held, alongside }: Batch,
  sent: Array<Promise<unknown>>,
): Promise<Assignment[]> {
  for (;;) {
    const rows = await reserve(db, agent, skip, o.reservationSeconds, limit);
    if (rows.length === 0) return [];
    const open: typeof rows = [];
    for (const row of rows) {
      // Every managed attempt runs inside its reservation: a later one the credit no longer
      // covers is not started, and the job ends billing.hard_cap.
      if (row.pool === 'managed' && Number(row.attempt) >= 2 && !(await coverNextAttempt(db, row.id))) {
        skip.push(row.id);
        await releaseReservation(db, row.id, agent.id);
        await o.workflows
          .stop(row.id, 'billing.hard_cap')
          .catch((err: unknown) =>
            o.log.warn({ err, jobId: row.id }, 'could not stop a job its credit no longer covers'),
          );
      } else open.push(row);
    }
    const taken: Handing[] = [];
    let failure: unknown;
    const settle = async (row: ReservedRow, outcome: Outcome, late: boolean) => {
      if ('handing' in outcome) {
        if (!late) return void taken.push(outcome.handing);
        // Written as any assignment (its attempt recorded), then taken back: nobody was told of it.
        await transitions.written([outcome.handing]);
        withdrawInBackground(o.workflows, row.id, outcome.handing.assignment.leaseId, o.log);
      } else if (outcome.failed) {
        // The Update may still apply, to an agent that will never hear of it: withdraw the lease.
        // The reservation keeps the row from other pollers meanwhile.
        withdrawInBackground(o.workflows, row.id, outcome.failed.leaseId, o.log);
        if (!late) failure ??= outcome.failed.cause;
      } else {
        skip.push(row.id);
        await releaseReservation(db, row.id, agent.id).catch(() => undefined);
      }
    };
    const outcomes = open.map((row) => outcomeOf(handOut(transitions, agent, row)));
    const now = await untilAllOrHeld(outcomes, held);
    for (const [i, row] of open.entries()) {
      const outcome = now[i];
      if (outcome) await settle(row, outcome, false);
      else sent.push(outcomes[i].then((later) => settle(row, later, true)));
    }
    if (taken.length > 0) {
      await transitions.written(taken, alongside?.());
      return taken.map(({ assignment }) => assignment);
    }
    if (failure !== undefined) throw failure;
  }
}

/** How a claim takes its jobs. */
export interface Batch {
  /** How many rows it reserves at most. */
  limit: number;
  /** Once a job is taken: how long the rest of the batch is waited for. */
  held?: () => Promise<unknown>;
  /** Called once every Update it sent has its answer. */
  settled?: () => void;
  /** What rides the trip that writes the assignments (the poll answer's stop list). */
  alongside?: () => RideAlong;
}

/** What one hand-out came to: a job taken, an Update that failed, or the run's refusal. */
type Outcome = { handing: Handing } | { failed?: HandOutFailed };

const outcomeOf = (p: Promise<Handing>): Promise<Outcome> =>
  p.then(
    (handing) => ({ handing }),
    (err: unknown) => (err instanceof HandOutFailed ? { failed: err } : {}),
  );

/**
 * The outcomes, once all have one, or once `held` resolves after the first job was taken: those
 * still under way then are undefined.
 */
function untilAllOrHeld(outcomes: Array<Promise<Outcome>>, held?: () => Promise<unknown>) {
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

type ReservedRow = Awaited<ReturnType<typeof reserve>>[number];

/** An assignment its run made, its write still to come. */
interface Handing {
  assignment: Assignment;
  workspaceId: string;
  t: Transition;
}

/** An Update that failed other than by the run's refusal: its lease may have been taken. */
class HandOutFailed extends Error {
  constructor(
    readonly leaseId: string,
    override readonly cause: unknown,
  ) {
    super('hand-out failed');
  }
}

/** One reserved job's `assign` Update, in a span of the job's trace (its parent the submit), linked to the poll. */
async function handOut(transitions: Transitions, agent: ClaimingAgent, row: ReservedRow): Promise<Handing> {
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

/**
 * Reserves claimable rows for the agent: under the key's lock, and one, when its key has quotas;
 * one for a node with a capacity, which each job taken changes (a managed-pool agent's statement
 * takes one anyway); else up to `limit`.
 */
async function reserve(db: Knex, agent: ClaimingAgent, skip: string[], seconds: number, limit: number) {
  if (!agent.key_has_quotas) return reserveSome(db, agent, skip, seconds, { limit: agent.free ? 1 : limit });
  return db.transaction(async (trx) => {
    // The quotas of the key the node registered with bound what all its nodes hold together.
    const allowance = await assignmentAllowance(trx, agent.registered_with_key_id);
    if (allowance?.blocked) return [];
    return reserveSome(trx, agent, skip, seconds, { types: allowance?.types, limit: 1 });
  });
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
