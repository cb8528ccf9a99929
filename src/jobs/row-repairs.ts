import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { isTerminal } from '../../workflows/job-model';
import type { Transition } from '../../workflows/definitions';
import { eachConcurrently } from '../shared/concurrently';
import { type JobWorkflowClient, RunTerminatedError } from '../temporal/job-workflow-client';
import { type RowRef, rowsBehindClosedRuns } from './closed-runs';
import { LIVE_STATES } from './lease';
import { releaseExpired } from './reservations';
import { TEMPORAL_ACTOR } from './temporal-actions';
import type { ChangeBy, SilentAttempts } from './transitions';

/** Rows a sweep repairs at once: a batch of a thousand ends in seconds, and the pool keeps room for requests. */
const REPAIRS_AT_ONCE = 8;

type Row = Record<string, unknown> | undefined;

export interface RowRepairsDeps {
  db: Knex;
  workflows: JobWorkflowClient;
  log: Logger;
  silentAttempts: SilentAttempts;
  /** Writes a transition into the read model (transitions.ts). */
  write(on: Knex | Knex.Transaction, workspaceId: string, t: Transition): Promise<Row>;
  /** The same, with its audit entry in its transaction. */
  writeAudited(
    workspaceId: string,
    t: Transition,
    entry: ChangeBy & { action: string; details?: Record<string, unknown> },
  ): Promise<Row>;
}

/**
 * Rows left behind their runs, levelled from the runs themselves (transitions.ts says how a row
 * falls behind): one at a time for a caller that noticed, and in sweeps for the reconciler.
 */
export function createRowRepairs({ db, workflows, log, silentAttempts, write, writeAudited }: RowRepairsDeps) {
  /**
   * Ends a job whose run was terminated in Temporal: nothing of the run will decide again, so the
   * row is ended from what it holds, CANCELLED with the operator's reason, its attempt ended with
   * its agent told to stop (the heartbeat's `cancel`), its webhook events and audit entry written
   * with it. Undefined when the row had already ended.
   */
  async function endTerminated(jobId: string, workspaceId: string, reason: string): Promise<Transition | undefined> {
    const row = await db('jobs')
      .where({ id: jobId, workspace_id: workspaceId })
      .first('state', 'attempt', 'lease_id', 'agent_id', 'started_at', 'available_at', 'version');
    if (!row || isTerminal(row.state)) return undefined;
    const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
    const failureReason = `terminated in Temporal: ${reason}` as const;
    const t: Transition = {
      snapshot: {
        jobId,
        state: 'CANCELLED',
        attempt: row.attempt,
        leaseId: null,
        agentId: row.agent_id,
        startedAt: iso(row.started_at),
        finishedAt: new Date().toISOString(),
        exitCode: null,
        runtimeMs: null,
        failureReason,
        error: null,
        availableAt: iso(row.available_at)!,
        version: row.version + 1,
      },
      ends: row.lease_id ? [{ leaseId: row.lease_id, reason: 'cancelled', kill: true }] : [],
    };
    await writeAudited(workspaceId, t, {
      actor: TEMPORAL_ACTOR,
      action: 'job.cancel',
      details: { reason: failureReason },
    });
    log.info({ jobId, reason }, 'ended a job whose run was terminated in Temporal');
    return t;
  }

  /** Writes the job as its run knows it (`truth` is undefined when it has no run); `written` when the row was behind. */
  async function repair(jobId: string, workspaceId: string): Promise<{ truth?: Transition; written: boolean }> {
    let truth: Transition | undefined;
    try {
      truth = await workflows.truth(jobId);
    } catch (err) {
      if (!(err instanceof RunTerminatedError)) throw err;
      const ended = await endTerminated(jobId, workspaceId, err.reason);
      return { truth: ended, written: Boolean(ended) };
    }
    return { truth, written: truth ? (await write(db, workspaceId, truth)) !== undefined : false };
  }

  /**
   * Repairs `rows` from their runs, a few at once, then runs `after` on each (repaired or not):
   * one run that cannot answer now (no worker on its queue, an outage) holds up no other.
   * `failed`: whether some could not be repaired.
   */
  async function repairRows(rows: RowRef[], after?: (row: RowRef) => Promise<void>) {
    let repaired = 0;
    let failed = false;
    await eachConcurrently(rows, REPAIRS_AT_ONCE, async (row) => {
      const outcome = await repair(row.id, row.workspace_id).catch((err) => {
        log.warn({ err: String(err), jobId: row.id }, 'could not repair a row from its run');
        failed = true;
        return { written: false };
      });
      if (outcome.written) repaired++;
      await after?.(row);
    });
    return { repaired, failed };
  }

  return {
    repair,
    endTerminated,

    /**
     * Finds rows that a crash between an Update and its write left behind their workflow, and
     * repairs them from the run. Each kind of window leaves a mark to look for:
     * - an assignment: a reservation that expired without its write (the claim clears it), which
     *   releaseExpiredReservations repairs, on a timer of its own;
     * - a result whose agent is gone too (it would have retried): a live row whose attempt has
     *   not been heard of for longer than any live agent stays silent;
     * - a cancel of a queued job whose caller gave up: a run closed as CANCELLED, from visibility.
     * A cancel of a running job needs no look: its grace ends it, and the run writes that itself.
     * Jobs whose run was terminated in Temporal are ended here too, found in visibility the same way.
     * Runs closed since `closedSince` are read through every page of the list, however many a batch
     * closed; `caughtUp` says each of their rows was repaired, so the caller may move past them.
     */
    async repairBehind(o: {
      silentForMs: number;
      closedSince: Date;
      limit?: number;
    }): Promise<{ repaired: number; caughtUp: boolean }> {
      const limit = o.limit ?? 100;
      const silent = await silentAttempts(db, { liveStates: LIVE_STATES, silentForMs: o.silentForMs, limit });
      // These marks stay on their rows until repaired: a later pass finds what this one left.
      let { repaired } = await repairRows(silent);
      let caughtUp = true;
      for await (const rows of rowsBehindClosedRuns(db, workflows, o.closedSince)) {
        const pass = await repairRows(rows);
        repaired += pass.repaired;
        if (pass.failed) caughtUp = false;
      }
      if (repaired > 0) log.info({ repaired }, 'repaired rows left behind their workflow');
      return { repaired, caughtUp };
    },

    /**
     * Reservations that ran out (a claim crashed, or its Update never reached the run): each row is
     * repaired from its run (the Update may have applied, and its agent heard of it), then freed
     * and announced to the polls that could take it. Apart from repairBehind, and often: an idle
     * node skips its claims until its queue is notified, so a reservation must not wait behind a
     * sweep that is slow for other reasons (runs that cannot answer, a long visibility list).
     */
    async releaseExpiredReservations(limit = 100): Promise<{ released: number; repaired: number }> {
      const reserved: RowRef[] = await db('jobs')
        .whereNotNull('claimed_by')
        .where('claimed_until', '<', db.raw("now() - interval '5 seconds'"))
        .limit(limit)
        .select('id', 'workspace_id');
      // The claim never wrote: nobody else will clear the reservation, or tell the polls.
      const { repaired } = await repairRows(reserved, (row) => releaseExpired(db, row.id));
      if (repaired > 0) log.info({ repaired }, 'repaired rows whose reservation ran out before their write');
      return { released: reserved.length, repaired };
    },
  };
}
