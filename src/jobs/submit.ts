import { insertWithReservation, reserveWorstCase } from '../billing/gate';
import * as otel from '@opentelemetry/api';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import { enforceSubmitQuota } from '../auth/quotas';
import type { ApiConfig } from '../config';
import { AppError } from '../shared/errors';
import { newId } from '../shared/ids';
import { type JobWorkflowClient, StartOutcomeUnknownError } from '../temporal/job-workflow-client';
import type { DataKeys } from '../crypto/data-keys';
import { sealEnv } from './env-at-rest';
import { createIdempotencyKeys, fingerprintOf } from './idempotency';
import { JOB_COLUMNS, type Job, jobFromRow } from './record';
import { type NewRow, insertStep, rowInsert } from './new-row';
import { type HandedStart, type WaitingPolls, abandonHandOff, handOver, startRun } from './hand-off';
import { createHeldSubmits } from './held-submit';
import { firstRunOf, timingsOf } from './run-input';
import type { Manifest } from './schemas';
import type { Transitions } from './transitions';

export interface SubmitDeps {
  db: Knex;
  dataKeys: DataKeys;
  workflows: JobWorkflowClient;
  transitions: Transitions;
  config: Pick<ApiConfig, 'durations' | 'limits' | 'dependencyRetryAfterSeconds'>;
  log: Logger;
  /** Polls waiting on this instance that a new job may be handed to at its start (src/jobs/hand-off.ts). */
  waitingPolls?: WaitingPolls;
}

/** Older than any submit can still be under way (its turn waits up to 10 s, its start's call budget is 10 s). */
const RECONCILE_AFTER_MS = 30_000;

export { specOf, timingsOf } from './run-input';

/**
 * Submitting a job: its row inserted unacknowledged, its run started, then the row made visible
 * through the seam (transitions.create); and the reconciler's settling of submits a crash cut.
 */
export function createSubmits({ db, dataKeys, workflows, transitions, config, log, waitingPolls }: SubmitDeps) {
  const timings = timingsOf(config);
  const idempotencyKeys = createIdempotencyKeys(db, { holdMs: config.durations.idempotencyHoldMs });
  const held = createHeldSubmits({ db, workflows, transitions, log, waitingPolls, timings });

  /**
   * Inserts the not-yet-acknowledged row: step one of submit, invisible until its workflow exists.
   * With `jobId` (an idempotent submit carried out again) the row may exist already: an
   * unacknowledged one is made young again, so the reconciler leaves it to this attempt; an
   * acknowledged one is returned as it is, with `acknowledged` set.
   */
  async function insertUnstarted(
    principal: Principal,
    manifest: Manifest,
    jobId?: string,
  ): Promise<Job & { acknowledged?: boolean }> {
    // The hot path: a key without quotas needs no lock and no count, and a new managed job's
    // credit gate rides in its insert's own statement.
    const managed = manifest.pool === 'managed';
    // The env is sealed before any transaction: its workspace's data key may be made on first use.
    const id = jobId ?? newId('job');
    const row: NewRow = {
      id,
      env: await sealEnv(dataKeys, principal.workspaceId, id, manifest.env),
      again: jobId !== undefined,
    };
    if (!principal.hasQuotas && !jobId) {
      if (managed) return insertGated(principal, manifest, row);
      const { statement, values } = insertStep(principal, manifest, row);
      return jobFromRow((await statement(db, values))[0]);
    }
    return db.transaction(async (trx) => {
      if (principal.hasQuotas) await enforceSubmitQuota(trx, principal.keyId, manifest.type);
      const job = await insertRow(trx, principal, manifest, row);
      // Billing's credit gate: refused, the row goes with the transaction.
      if (managed && !job.acknowledged) await reserveWorstCase(trx, principal.workspaceId, job.id, manifest);
      return job;
    });
  }

  /** A new managed job's row and its credit reservation in one statement (src/billing/gate.ts). */
  async function insertGated(principal: Principal, manifest: Manifest, row: NewRow): Promise<Job> {
    const { sql, bindings } = rowInsert(db, principal, manifest, row).toSQL();
    return jobFromRow(await insertWithReservation(db, { sql, bindings }, principal.workspaceId, manifest));
  }

  async function insertRow(
    trx: Knex | Knex.Transaction,
    principal: Principal,
    manifest: Manifest,
    row: NewRow,
  ): Promise<Job & { acknowledged?: boolean }> {
    const now = trx.fn.now();
    const insert = rowInsert(trx, principal, manifest, row);
    if (!row.again) return jobFromRow((await insert)[0]);
    const [made] = await insert
      .onConflict('id')
      .merge({ created_at: now, available_at: now })
      .where('jobs.workflow_started', false);
    if (made) return jobFromRow(made);
    const existing = await trx('jobs')
      .where({ id: row.id, workspace_id: principal.workspaceId })
      .first(trx.raw(JOB_COLUMNS));
    if (!existing) throw new AppError('internal', 'an idempotency key names a job of another workspace');
    return { ...jobFromRow(existing), acknowledged: true };
  }

  /**
   * Submits the job. With `jobId` (named by an idempotency key) every call makes that one job: a
   * call after a crash anywhere in an earlier one finds what it left (the row, the run) and
   * finishes it, and the run's ID policy means no two calls can start two runs.
   */
  async function submit(principal: Principal, manifest: Manifest, jobId?: string): Promise<Job> {
    if (manifest.type !== 'COMMAND') {
      throw new AppError('job.unsupported_type', `Job type ${manifest.type} is not supported`, {
        supported: ['COMMAND'],
      });
    }
    if (!principal.hasQuotas && !jobId && manifest.pool !== 'managed') return submitInTurn(principal, manifest);
    const { acknowledged, ...job } = await insertUnstarted(principal, manifest, jobId);
    otel.trace.getActiveSpan()?.setAttribute('job.id', job.id);
    if (acknowledged) return job;
    return startAndAcknowledge(job, (start) => transitions.turns.change(principal.workspaceId, start));
  }

  /**
   * A hot-path submit: within its turn, in one transaction when the instance may hold one more
   * across a Temporal call (transitions.holds), else stepwise. The choice is made once the turn
   * has come: submits waiting their turn hold nothing.
   */
  async function submitInTurn(principal: Principal, manifest: Manifest): Promise<Job> {
    const id = newId('job');
    otel.trace.getActiveSpan()?.setAttribute('job.id', id);
    const row: NewRow = { id, env: await sealEnv(dataKeys, principal.workspaceId, id, manifest.env), again: false };
    return transitions.turns.change(principal.workspaceId, async () => {
      const release = transitions.holds.take();
      if (release) return held.submit(principal, manifest, row).finally(release);
      const { statement, values } = insertStep(principal, manifest, row);
      return startAndAcknowledge(jobFromRow((await statement(db, values))[0]), (start) => start());
    });
  }

  /**
   * The stepwise submit's steps after its row: the run started (`inTurn`), then the row made
   * visible. The reconciler settles a row a crash leaves between them.
   */
  async function startAndAcknowledge(job: Job, inTurn: (start: () => Promise<void>) => Promise<void>): Promise<Job> {
    let handed: HandedStart | undefined;
    try {
      await inTurn(async () => {
        handed = await startRun({ workflows, waitingPolls }, job, firstRunOf(job, timings));
      });
    } catch (err) {
      // The workflow may exist after all: the reconciler looks and then starts or removes the row.
      if (err instanceof StartOutcomeUnknownError) {
        log.warn({ jobId: job.id }, 'submit: the workflow start is unconfirmed; the reconciler will settle the row');
        throw err;
      }
      // Certainly not started and not acknowledged: take the row back (else the reconciler will).
      await db('jobs')
        .where({ id: job.id, workflow_started: false })
        .delete()
        .catch(() => undefined);
      throw err;
    }
    let created: Awaited<ReturnType<Transitions['create']>>;
    try {
      created = await transitions.create(job.id, {
        handed: handed && { workspaceId: job.workspaceId, assigned: handed.assigned, alongside: handed.poll.alongside },
      });
    } catch (err) {
      // The run holds an assignment nobody will hear of: withdrawn, the run queues the job again
      // (the reconciler makes its row visible, as after any start whose next write failed).
      if (handed) abandonHandOff({ workflows, log }, job.id, handed);
      throw err;
    }
    if (created === 'gone') {
      handed?.poll.release();
      // The reconciler found no workflow while the start was still under way, and removed the
      // row: the run just started would be a job nobody can see. End it; the client resubmits.
      await workflows
        .terminate(job.id, 'its submit was settled as failed before the workflow started')
        .catch((err) =>
          log.error({ err: String(err), jobId: job.id }, 'submit: could not terminate a workflow whose row is gone'),
        );
      throw new AppError(
        'dependency.unavailable',
        'The submit took too long and was not kept; submit it again',
        undefined,
        config.dependencyRetryAfterSeconds,
      );
    }
    if (handed) handOver({ workflows, log }, job, handed);
    return job;
  }

  /**
   * Whether a failed submit may have left its job: its row is there (the run started and a later
   * write failed, and the reconciler will finish it), or the database cannot say. Only a job
   * certainly not made lets its key go; otherwise a retry after the hold would make a second.
   */
  const mayExist = (jobId: string): Promise<boolean> =>
    db('jobs')
      .where({ id: jobId })
      .first('id')
      .then(
        (row) => row !== undefined,
        () => true,
      );

  /**
   * A submit under an `Idempotency-Key`: the first request with the key makes the job and its
   * answer (`render`) is kept; a later one with the same body gets that answer (`replayed`).
   * A failure that made no job lets the key go; one that may have (an unconfirmed start, or a
   * write after the start that failed) keeps it, so a retry once the hold has passed finishes that
   * same job.
   */
  async function submitWithKey<T>(
    principal: Principal,
    manifest: Manifest,
    key: string,
    render: (job: Job) => T,
  ): Promise<{ body: T; replayed: boolean }> {
    const claim = await idempotencyKeys.claim(
      principal.workspaceId,
      key,
      fingerprintOf(await dataKeys.of(principal.workspaceId), manifest),
    );
    if (claim.kind === 'replay') return { body: claim.body as T, replayed: true };
    let job: Job;
    try {
      job = await submit(principal, manifest, claim.jobId);
    } catch (err) {
      if (!(err instanceof StartOutcomeUnknownError) && !(await mayExist(claim.jobId))) {
        await idempotencyKeys
          .release(principal.workspaceId, key, claim.holder)
          .catch((e) => log.warn({ err: String(e), key }, 'submit: could not let an idempotency key go'));
      }
      throw err;
    }
    const body = render(job);
    await idempotencyKeys.complete(principal.workspaceId, key, job.id, 201, body);
    return { body, replayed: false };
  }

  return {
    insertUnstarted,
    submit,
    submitWithKey,
    /** Removes expired idempotency keys (the reconciler's sweep). */
    sweepIdempotencyKeys: () => idempotencyKeys.sweep(),

    /** Ends the open runs started in [from, to) that have no row (src/jobs/held-submit.ts). */
    endRunsWithoutRows: held.endRunsWithoutRows,

    /**
     * Settles rows whose submit was interrupted between its steps: a row whose workflow exists
     * was acknowledged (or about to be) and becomes visible; one without a workflow never was,
     * and is removed. Nothing acknowledged is lost, nothing is run twice.
     */
    async reconcile(olderThanMs = RECONCILE_AFTER_MS): Promise<{ started: number; removed: number }> {
      // Ages on the database's clock, which stamped the rows: an API host's clock may be off.
      const rows = await db('jobs')
        .where({ workflow_started: false })
        .where('created_at', '<', db.raw('now() - make_interval(secs => ?)', [olderThanMs / 1000]))
        .select('id', 'workspace_id')
        .limit(500);
      let started = 0;
      let removed = 0;
      // Each row on its own: one that cannot be settled (Temporal down for it, a row that will not
      // go) is logged and left for the next pass, never a stop for the rows behind it.
      for (const row of rows) {
        try {
          if (await workflows.exists(row.id)) {
            await transitions.create(row.id);
            started++;
          } else {
            // Still old: a submit carried out again meanwhile made it young and owns it now.
            removed += await db('jobs')
              .where({ id: row.id, workflow_started: false })
              .where('created_at', '<', db.raw('now() - make_interval(secs => ?)', [olderThanMs / 1000]))
              .delete();
          }
        } catch (err) {
          log.warn(
            { err: String(err), jobId: row.id },
            'could not settle an interrupted submit; the next pass tries again',
          );
        }
      }
      if (started + removed > 0) log.info({ started, removed }, 'reconciled interrupted submits');
      return { started, removed };
    },
  };
}
