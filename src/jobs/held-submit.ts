import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import { holding } from '../db/held-transaction';
import type { JobTimings } from '../../workflows/definitions';
import { StartOutcomeUnknownError, type JobWorkflowClient } from '../temporal/job-workflow-client';
import { type HandedStart, type WaitingPolls, handOver, startRun } from './hand-off';
import { withdrawInBackground } from './hand-outs';
import { type NewRow, insertStep } from './new-row';
import { type Job, jobFromRow } from './record';
import type { Manifest } from './schemas';
import type { Transitions } from './transitions';
import { firstRunOf } from './run-input';

/** Why a run is ended: its submit's transaction never committed, so no one knows the job. */
const RUN_WITHOUT_ROW = 'its submit was never committed: no job row, nobody can see it';

/** A submit in one transaction, and the sweep that ends the runs a crash left without a row. */
export function createHeldSubmits({
  db,
  workflows,
  transitions,
  log,
  waitingPolls,
  timings,
}: {
  db: Knex;
  workflows: JobWorkflowClient;
  transitions: Transitions;
  log: Logger;
  waitingPolls?: WaitingPolls;
  timings: JobTimings;
}) {
  /**
   * The hot path's submit (a workspace's own job, no quotas, no idempotency key) in one
   * transaction, within its turn: the row is inserted, the run started while the transaction is
   * held, and the row made visible and committed with its audit entry and event.
   * No one else ever sees the row before its run exists, so nothing is left for the reconciler
   * but two cases: a start whose outcome is unknown commits the row unacknowledged (the
   * reconciler looks for its run, as for a stepwise submit), and a crash before the commit leaves
   * a run without a row, which the reconciler's sweep of recent runs ends (`endRunsWithoutRows`).
   * Managed jobs go stepwise: their credit gate locks the workspace's account until its commit.
   * Key quotas and idempotency keys do too: a key's job ID may name a row a crash left.
   */
  async function submit(principal: Principal, manifest: Manifest, row: NewRow): Promise<Job> {
    const { id } = row;
    return holding(db, insertStep(principal, manifest, row), async (inserted, held) => {
      const job = jobFromRow(inserted[0]);
      let handed: HandedStart | undefined;
      try {
        handed = await startRun({ workflows, waitingPolls }, job, firstRunOf(job, timings));
      } catch (err) {
        if (err instanceof StartOutcomeUnknownError) {
          log.warn({ jobId: id }, 'submit: the workflow start is unconfirmed; the reconciler will settle the row');
          await held.commit([]);
        }
        throw err;
      }
      const ack = transitions.acknowledgement(id, {
        handed: handed && {
          workspaceId: job.workspaceId,
          assigned: handed.assigned,
          alongside: handed.poll.alongside,
        },
      });
      try {
        ack.took(await held.commit(ack.steps, ack.riders));
      } catch (err) {
        handed?.poll.release();
        endUncommitted(id, handed);
        throw err;
      }
      if (handed) handOver({ workflows, log }, job, handed);
      return job;
    });
  }

  /**
   * A held submit whose commit failed after its run started: a run nobody can see unless the
   * commit went through after all. Ended in the background once the row is known to be absent;
   * a row that is there keeps its run (a hand-off's lease is withdrawn: its poll never heard);
   * a database that cannot say leaves it to the reconciler's sweep.
   */
  function endUncommitted(jobId: string, handed: HandedStart | undefined): void {
    void db('jobs')
      .where({ id: jobId })
      .first('id')
      .then(async (row) => {
        if (row) {
          if (handed) withdrawInBackground(workflows, jobId, handed.leaseId, log);
          return;
        }
        await workflows.terminate(jobId, RUN_WITHOUT_ROW);
      })
      .catch((err: unknown) =>
        log.warn({ err: String(err), jobId }, 'submit: a run whose row did not commit is left to the reconciler'),
      );
  }

  return {
    submit,

    /**
     * Ends the open runs started in [from, to) that have no row: a held submit (`submit`) cut
     * between its run's start and its commit. Nobody was told of the job, so nothing is lost; a
     * row that commits after its run was ended is settled as any run terminated in Temporal.
     * `to` must lie further back than any held transaction can last (its idle limit).
     * `workspaceId` narrows the sweep to one workspace's runs. Answers how many it ended; throws
     * when a page could not be read or settled, so the caller reads the same window again.
     */
    async endRunsWithoutRows(from: Date, to: Date, workspaceId?: string): Promise<number> {
      let ended = 0;
      for await (const ids of workflows.openStartedBetween(from, to, workspaceId)) {
        const rows = await db('jobs').whereIn('id', ids).pluck('id');
        const known = new Set(rows);
        for (const id of ids.filter((i) => !known.has(i))) {
          await workflows.terminate(id, RUN_WITHOUT_ROW);
          ended++;
        }
      }
      if (ended > 0) log.warn({ ended }, 'ended runs whose submit never committed');
      return ended;
    },
  };
}
