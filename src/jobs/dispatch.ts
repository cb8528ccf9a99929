import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { assignmentAllowance } from '../auth/quotas';
import { coverNextAttempt } from '../billing/gate';
import { snapshotColumns } from './projection';
import { type ReservingAgent, releaseReservation, reserveNext } from './reservations';
import type { Transitions } from './transitions';
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
 * Takes the best claimable job for an agent: highest priority, then oldest, matching its labels
 * (for a managed-pool agent: across the workspaces of its region in turn, see reservations.ts).
 *
 * The row is first reserved for the agent in a statement of its own (SKIP LOCKED, so pollers pass
 * over each other), and only then is the job's workflow asked, through the `assign` Update, with
 * no database connection held: a slow or absent worker cannot drain the pool. A refusal
 * (cancelled meanwhile) moves on to the next row.
 *
 * Once the workflow has assigned the job, the read model's write (one statement, its commit not
 * waiting for the disk: see transitions.assign) goes before the answer, so whoever asks the read
 * model whether a node holds the job (heartbeat, log push, artifact upload) finds it. Should the
 * write fail, the reconciler repairs the row from the workflow.
 */
export async function claimOne(
  db: Knex,
  transitions: Transitions,
  agent: ClaimingAgent,
  skip: string[],
  o: ClaimOptions,
): Promise<Assignment | null> {
  for (;;) {
    const row = await reserve(db, agent, skip, o.reservationSeconds);
    if (!row) return null;
    // Every managed attempt runs inside its reservation: a later one the credit no longer covers
    // is not started, and the job ends billing.hard_cap.
    if (row.pool === 'managed' && Number(row.attempt) >= 2 && !(await coverNextAttempt(db, row.id))) {
      skip.push(row.id);
      await releaseReservation(db, row.id, agent.id);
      await o.workflows
        .stop(row.id, 'billing.hard_cap')
        .catch((err: unknown) =>
          o.log.warn({ err, jobId: row.id }, 'could not stop a job its credit no longer covers'),
        );
      continue;
    }
    const leaseId = newId('lease');
    try {
      // A span of the job's trace (its parent the submit), linked to the poll that took it.
      return await inSpan(
        'job.hand-out',
        { 'job.id': row.id, 'agent.id': agent.id },
        async (span) => {
          // The job's workspace: a managed-pool agent's own is the operator's, not the job's.
          const { snapshot } = await transitions.assign(row.id, row.workspace_id, { leaseId, agentId: agent.id });
          const job = jobFromRow({ ...row, ...snapshotColumns(snapshot) });
          span?.setAttribute('job.attempt', job.attempt);
          return { job, leaseId, traceparent: traceparentOf() };
        },
        contextOf(row.trace_parent as string | null),
        linkToActive(),
      );
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'job.invalid_state')) {
        // The Update may still apply, to an agent that will never hear of it: withdraw the lease.
        // The reservation keeps the row from other pollers meanwhile.
        withdrawInBackground(o.workflows, row.id, leaseId, o.log);
        throw err;
      }
      skip.push(row.id);
      await releaseReservation(db, row.id, agent.id);
    }
  }
}

/** Reserves the next claimable row for the agent; under the key's lock when its key has quotas. */
async function reserve(db: Knex, agent: ClaimingAgent, skip: string[], seconds: number) {
  if (!agent.key_has_quotas) return reserveNext(db, agent, skip, seconds);
  return db.transaction(async (trx) => {
    // The quotas of the key the node registered with bound what all its nodes hold together.
    const allowance = await assignmentAllowance(trx, agent.registered_with_key_id);
    if (allowance?.blocked) return null;
    return reserveNext(trx, agent, skip, seconds, allowance?.types);
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
