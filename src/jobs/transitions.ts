import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { type AuditEntry, appendAudit } from '../audit/log';
import { AppError, invalidState, notAssigned } from '../shared/errors';
import { type JobWorkflowClient, RunTerminatedError, WorkflowClosedError } from '../temporal/job-workflow-client';
import {
  type AssignInput,
  type JobWorkflowInput,
  type ResultInput,
  type Transition,
  queuedSnapshot,
} from '../../workflows/definitions';
import { applyProjection } from './projection';
import { inOneTrip } from '../db/one-trip';
import { heldBudget } from '../db/held-transaction';
import { type Handed, createAnswerWrites } from './answer-writes';
import type { TripRiders } from '../db/trip-riders';
import type { Notifier } from '../db/notifier';
import { createTurns } from './turns';
import { createRowRepairs } from './row-repairs';
import type { ApiConfig } from '../config';

/** Who asked for a change: its audit entry's actor and origin. */
export type ChangeBy = Pick<AuditEntry, 'actor' | 'origin'>;

/** Live jobs whose attempt has gone silent (src/agents/liveness.ts, injected: agents depends on jobs, not back). */
export type SilentAttempts = (
  db: Knex,
  o: { liveStates: readonly string[]; silentForMs: number; limit: number },
) => Promise<Array<{ id: string; workspace_id: string }>>;

export interface TransitionsDeps {
  db: Knex;
  workflows: JobWorkflowClient;
  config: Pick<ApiConfig, 'limits' | 'dependencyRetryAfterSeconds' | 'dbPoolMax'>;
  log: Logger;
  silentAttempts: SilentAttempts;
  /** Writes that ride this instance's job writes (src/db/trip-riders.ts). */
  riders?: TripRiders;
  /** This instance's listener, when it has one: a submit offers its job in memory while no other instance listens. */
  notifier?: Pick<Notifier, 'alone' | 'offer'>;
}

/**
 * The one seam through which a job changes state. Each transition runs the workflow's Update, which
 * decides, and writes what the Update answered (the snapshot and the attempt ends) into the read
 * model, guarded by the snapshot's version. Later side effects of a transition (webhooks,
 * metering) belong here too.
 *
 * A crash between an Update and its write leaves the row behind its workflow. `repair`
 * (row-repairs.ts) levels it from the run itself; every path that can notice calls it: a repeated
 * result or cancel (the caller retries what it got no answer to), a claim the workflow refuses,
 * and the reconciler.
 */
export function createTransitions({ db, workflows, config, log, silentAttempts, riders, notifier }: TransitionsDeps) {
  const turns = createTurns({
    changesMax: config.limits.changesInFlightMax,
    pushLinesMax: config.limits.logLinesInFlightMax,
    retryAfterSeconds: config.dependencyRetryAfterSeconds,
  });
  const write = (on: Knex | Knex.Transaction, workspaceId: string, t: Transition) =>
    applyProjection(on, { snapshot: t.snapshot, workspaceId, attemptEnds: t.ends }, { durable: true, riders });
  /** A change someone asked for: its write and its audit entry commit together. */
  const writeAudited = (
    workspaceId: string,
    t: Transition,
    entry: ChangeBy & { action: string; details?: Record<string, unknown> },
  ) =>
    db.transaction(async (trx) => {
      const row = await write(trx, workspaceId, t);
      await appendAudit(trx, {
        ...entry,
        workspaceId,
        target: { type: 'job', id: t.snapshot.jobId },
        details: { state: t.snapshot.state, attempt: t.snapshot.attempt, ...entry.details },
      });
      return row;
    });
  const repairs = createRowRepairs({ db, workflows, log, silentAttempts, write, writeAudited });
  const { repair, endTerminated } = repairs;

  const answers = createAnswerWrites({ db, log, riders, notifier });

  return {
    /** Who goes first among this instance's Temporal calls (submits take their turn with `turns.change`). */
    turns,

    /** The transactions this instance may hold open across Temporal calls (held submits and claims). */
    holds: heldBudget(config.dbPoolMax),

    /**
     * A submitted job comes to be: its row, inserted unacknowledged by the submit, becomes visible
     * once its workflow exists, with the submit's audit entry and its `job.created` event, in one
     * statement, so one round trip on the submit's critical path and the entry exactly when the
     * job is acknowledged (by the submit or by the reconciler); the NOTIFY that wakes the polls
     * able to take it (its workspace's, or its region's managed agents) goes out on commit.
     * `handed`: the job went to a waiting poll with its run's start; no NOTIFY, and its assignment
     * is written in the same round trip, with what the poll's answer reads (`alongside`). `gone`
     * means no row is left to mark.
     */
    async create(jobId: string, o: { handed?: Handed } = {}): Promise<'marked' | 'already' | 'gone'> {
      const ack = answers.acknowledgement(jobId, o);
      return ack.took(await inOneTrip(db, ack.steps, ack.riders));
    },

    /** `create`'s statements, for a submit that commits them in a transaction it holds (src/jobs/submit.ts). */
    acknowledgement: answers.acknowledgement,

    /**
     * Asks a reserved job's run to hand it to an agent; `written` must follow before the agent is
     * answered. 409 `job.invalid_state` when the workflow refuses (the job moved on since its row
     * was read): the caller then repairs the row (`passOver`), once it holds no lock on it.
     */
    async assign(jobId: string, workspaceId: string, input: AssignInput): Promise<Transition> {
      try {
        return await turns.progress(workspaceId, () => workflows.assign(jobId, input));
      } catch (err) {
        const refused =
          err instanceof WorkflowClosedError || (err instanceof AppError && err.code === 'job.invalid_state');
        if (!refused) throw err;
        throw invalidState('the job is no longer claimable');
      }
    },

    /** A job whose run refused its assignment: its row was behind the run, and is repaired. */
    passOver: (jobId: string, workspaceId: string): Promise<void> =>
      repair(jobId, workspaceId).then(
        () => undefined,
        (e: unknown) => log.warn({ err: String(e), jobId }, 'could not repair a row behind its workflow'),
      ),

    /**
     * Writes the assignments `assign` returned, together, before their agents are answered, with
     * what the poll's answer reads (`alongside`) in the same trip.
     */
    written: answers.written,

    /** `written`'s statements, for a claim that commits them in the transaction that reserved the rows (src/jobs/dispatch.ts). */
    assignmentWrites: answers.assignmentWrites,

    /**
     * Applies an agent's terminal report and returns the written row (undefined when it was
     * already current). A report repeated after its run closed (its first answer was lost)
     * repairs the row from the run and is answered the same; any other lease is 409.
     */
    async result(
      jobId: string,
      workspaceId: string,
      input: ResultInput & { agentId: string },
    ): Promise<Record<string, unknown> | undefined> {
      try {
        return await write(db, workspaceId, await turns.progress(workspaceId, () => workflows.result(jobId, input)));
      } catch (err) {
        if (!(err instanceof WorkflowClosedError)) throw err;
        const truth = await workflows.truth(jobId).catch(async (e: unknown) => {
          // Its run was terminated: the job ends here, and this attempt with it.
          if (!(e instanceof RunTerminatedError)) throw e;
          await endTerminated(jobId, workspaceId, e.reason);
          throw notAssigned();
        });
        const reported = truth?.ends.some(
          (e) => e.leaseId === input.leaseId && e.reason === 'result' && e.result?.agentId === input.agentId,
        );
        if (truth && reported) return write(db, workspaceId, truth);
        // The closed run's last transition holds only the last attempt's ends: a report of an
        // earlier attempt, repeated now, was written to its attempt's row when first answered.
        const recorded = await db('job_attempts')
          .where({ job_id: jobId, lease_id: input.leaseId, agent_id: input.agentId })
          .whereNotNull('result')
          .first('lease_id');
        if (!recorded) throw notAssigned();
        return undefined;
      }
    },

    /**
     * Cancels the job: `row` is the written row (absent when the row was already as new), with
     * the cancel's audit entry in its transaction. A job that already ended is left as it is and
     * reported (`endedAs`), its row repaired if it had not shown it; each surface decides what
     * that means to its caller.
     */
    async cancel(
      jobId: string,
      workspaceId: string,
      by: ChangeBy,
    ): Promise<{ row?: Record<string, unknown>; endedAs?: string }> {
      let t: Transition;
      try {
        t = await turns.change(workspaceId, () => workflows.cancel(jobId));
      } catch (err) {
        // The run refuses only a job that has ended, whether or not it has closed yet (its final
        // projection may still be on its way): either way the job ended before this cancel.
        const ended =
          err instanceof WorkflowClosedError || (err instanceof AppError && err.code === 'job.invalid_state');
        if (!ended) throw err;
        const { truth } = await repair(jobId, workspaceId);
        return { endedAs: truth?.snapshot.state ?? 'finished' };
      }
      return { row: await writeAudited(workspaceId, t, { ...by, action: 'job.cancel' }) };
    },

    repairBehind: repairs.repairBehind,
    releaseExpiredReservations: repairs.releaseExpiredReservations,

    /** Starts the next run of a failed or timed-out job, queued at `input.attempt`. */
    async retry(workspaceId: string, input: JobWorkflowInput, by: ChangeBy): Promise<void> {
      // The finished run may still be closing after its last write: milliseconds, or seconds when
      // its worker is loaded (its last workflow task closes it). Waited out for up to about 6 s.
      let started = false;
      for (let pause = 100; ; pause *= 2) {
        started = await turns.change(workspaceId, () => workflows.start(input));
        if (started || pause > 3200) break;
        await new Promise((r) => setTimeout(r, pause));
      }
      if (!started) throw invalidState('job is already being retried');
      // The new run writes this too, first thing: whichever lands first, the other changes nothing.
      await writeAudited(
        workspaceId,
        { snapshot: queuedSnapshot(input, new Date().toISOString()), ends: [] },
        { ...by, action: 'job.retry' },
      );
    },
  };
}

export type Transitions = ReturnType<typeof createTransitions>;
