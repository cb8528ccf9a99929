import type { Knex } from 'knex';
import { auditInsertFromPending, pendingEntry } from '../audit/log';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { NOTIFY } from '../db/channels';
import { AppError, invalidState, notFound } from '../shared/errors';
import { newId } from '../shared/ids';
import type { Principal } from '../auth/principal';
import { enforceSubmitQuota } from '../auth/quotas';
import { type JobWorkflowClient, StartOutcomeUnknownError } from '../temporal/job-workflow-client';
import { type JobSpec, type JobState, TERMINAL_STATES } from '../../workflows/definitions';
import type { Transitions } from './transitions';
import { prepared } from '../db/prepared';
import { JOB_COLUMNS, type Job, jobFromRow } from './record';
import type { JobListFilter, Manifest } from './schemas';
import { createJobLister } from './list';
import { createIdempotencyKeys, fingerprintOf } from './idempotency';
import { createdEventInsert, newEventId } from '../webhooks/outbox';

export interface JobsDeps {
  db: Knex;
  workflows: JobWorkflowClient;
  transitions: Transitions;
  config: Config;
  log: Logger;
}

const AUDIT_SUBMIT = auditInsertFromPending('started', 'job.submit', 'job');
const CREATED_EVENT = createdEventInsert('started');

/** Older than any submit can still be under way (its turn waits up to 10 s, its start's call budget is 10 s). */
const RECONCILE_AFTER_MS = 30_000;

export function createJobsService({ db, workflows, transitions, config, log }: JobsDeps) {
  const timings = {
    agentLostAfterMs: config.durations.agentLostAfterMs,
    cancelGraceMs: config.durations.cancelGraceMs,
    agentLossBackoffMs: config.durations.agentLossBackoffMs,
    agentLossMaxAttempts: config.limits.agentLossMaxAttempts,
  };
  const specOf = (job: Job): JobSpec => ({
    jobId: job.id,
    workspaceId: job.workspaceId,
    type: job.type,
    command: job.command,
    labels: job.labels,
    timeoutSeconds: job.timeoutSeconds,
    retry: job.retry,
    createdAt: job.createdAt,
  });

  const listJobs = createJobLister(db);
  const idempotencyKeys = createIdempotencyKeys(db, { holdMs: config.durations.idempotencyHoldMs });
  const JOB_BY_ID = `FROM jobs WHERE id = $1 AND workspace_id = $2 AND workflow_started`;
  const selectJob = prepared(db, 'jobs_get', `SELECT ${JOB_COLUMNS}, claimed_until > now() AS being_claimed ${JOB_BY_ID}`);
  const selectJobAfterClaim = prepared(db, 'jobs_get_after_claim', `SELECT ${JOB_COLUMNS} ${JOB_BY_ID} FOR SHARE`);

  /** The job if it is the caller's and acknowledged; another workspace's job is simply not found. */
  async function get(principal: Principal, jobId: string): Promise<Job> {
    let [row] = await selectJob([jobId, principal.workspaceId]);
    // An assignment is answered while its write commits behind the answer (transitions.assign),
    // holding the row's lock: a queued row that a poll holds may already be the agent's. Waiting
    // on the lock reads it as the agent was told; with no assignment committing it costs nothing.
    if (row?.state === 'QUEUED' && row.being_claimed) [row] = await selectJobAfterClaim([jobId, principal.workspaceId]);
    if (!row) throw notFound('job');
    return jobFromRow(row);
  }

  /**
   * Makes the row visible once its workflow exists, and writes the submit's audit entry and its
   * `job.created` event: one
   * statement, so one round trip on the submit's critical path and the entry exactly when the job
   * is acknowledged (by the submit or by the reconciler); the NOTIFY goes out on commit. `gone`
   * means no row is left to mark.
   */
  async function markStarted(jobId: string, workspaceId: string): Promise<'marked' | 'already' | 'gone'> {
    const { rows } = await db.raw(
      `WITH started AS (UPDATE jobs SET workflow_started = true WHERE id = ? AND NOT workflow_started
                        RETURNING *, id AS target_id, submitted_by AS pending),
       audited AS (${AUDIT_SUBMIT}),
       created AS (${CREATED_EVENT}),
       n AS (SELECT pg_notify(?, ?) FROM started)
       SELECT (SELECT count(*) FROM n) AS marked, EXISTS (SELECT 1 FROM jobs WHERE id = ?) AS present`,
      [jobId, newEventId(), NOTIFY.jobQueued, workspaceId, jobId],
    );
    if (Number(rows[0].marked) > 0) return 'marked';
    return rows[0].present ? 'already' : 'gone';
  }

  /**
   * Inserts the not-yet-acknowledged row: step one of submit, invisible until its workflow exists.
   * With `jobId` (an idempotent submit carried out again) the row may exist already: an
   * unacknowledged one is made young again, so the reconciler leaves it to this attempt; an
   * acknowledged one is returned as it is, with `acknowledged` set.
   */
  async function insertUnstarted(principal: Principal, manifest: Manifest, jobId?: string): Promise<Job & { acknowledged?: boolean }> {
    // The hot path: a key without quotas needs no lock and no count.
    if (!principal.hasQuotas) return insertRow(db, principal, manifest, jobId);
    return db.transaction(async (trx) => {
      await enforceSubmitQuota(trx, principal.keyId, manifest.type);
      return insertRow(trx, principal, manifest, jobId);
    });
  }

  async function insertRow(trx: Knex | Knex.Transaction, principal: Principal, manifest: Manifest, jobId?: string): Promise<Job & { acknowledged?: boolean }> {
    // The database's clock, which the reconciler measures ages with.
    const now = trx.fn.now();
    const insert = trx('jobs')
      .insert({
        id: jobId ?? newId('job'),
        workspace_id: principal.workspaceId,
        type: manifest.type,
        command: manifest.command,
        env: JSON.stringify(manifest.env),
        labels: JSON.stringify(manifest.labels),
        selector: JSON.stringify(manifest.selector),
        resources: manifest.resources ? JSON.stringify(manifest.resources) : null,
        pool: manifest.pool,
        retry: JSON.stringify(manifest.retry),
        priority: manifest.priority,
        artifacts_spec: manifest.artifacts ? JSON.stringify(manifest.artifacts) : null,
        timeout_seconds: manifest.timeoutSeconds,
        state: 'QUEUED',
        created_at: now,
        available_at: now,
        submitted_with_key_id: principal.keyId ?? null,
        submitted_by: pendingEntry({ actor: principal.actor, origin: principal.origin, details: { type: manifest.type } }),
      })
      .returning('*');
    if (!jobId) return jobFromRow((await insert)[0]);
    const [row] = await insert.onConflict('id').merge({ created_at: now, available_at: now }).where('jobs.workflow_started', false);
    if (row) return jobFromRow(row);
    const existing = await trx('jobs').where({ id: jobId, workspace_id: principal.workspaceId }).first();
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
      throw new AppError('job.unsupported_type', `Job type ${manifest.type} is not supported`, { supported: ['COMMAND'] });
    }
    // Nothing serves the managed pool yet: such a job would wait forever.
    if (manifest.pool === 'managed') {
      throw new AppError('request.invalid', 'The managed pool is not available yet; run the job on your own agents (pool "self", the default)', {
        fields: [{ path: 'pool', message: 'the managed pool is not available yet' }],
      });
    }
    const { acknowledged, ...job } = await insertUnstarted(principal, manifest, jobId);
    if (acknowledged) return job;
    try {
      await transitions.turns.change(() => workflows.start({ spec: specOf(job), timings, attempt: 1, version: 0 }));
    } catch (err) {
      // The workflow may exist after all: the reconciler looks and then starts or removes the row.
      if (err instanceof StartOutcomeUnknownError) {
        log.warn({ jobId: job.id }, 'submit: the workflow start is unconfirmed; the reconciler will settle the row');
        throw err;
      }
      // Certainly not started and not acknowledged: take the row back (else the reconciler will).
      await db('jobs').where({ id: job.id, workflow_started: false }).delete().catch(() => undefined);
      throw err;
    }
    if ((await markStarted(job.id, job.workspaceId)) === 'gone') {
      // The reconciler found no workflow while the start was still under way, and removed the
      // row: the run just started would be a job nobody can see. End it; the client resubmits.
      await workflows.terminate(job.id, 'its submit was settled as failed before the workflow started').catch((err) =>
        log.error({ err: String(err), jobId: job.id }, 'submit: could not terminate a workflow whose row is gone'),
      );
      throw new AppError('dependency.unavailable', 'The submit took too long and was not kept; submit it again', undefined, config.dependencyRetryAfterSeconds);
    }
    return job;
  }

  /**
   * A submit under an `Idempotency-Key`: the first request with the key makes the job and its
   * answer (`render`) is kept; a later one with the same body gets that answer (`replayed`).
   * A failure that made no job lets the key go; one that may have (an unconfirmed start) keeps it,
   * so a retry once the hold has passed finishes that same job.
   */
  async function submitWithKey<T>(principal: Principal, manifest: Manifest, key: string, render: (job: Job) => T): Promise<{ body: T; replayed: boolean }> {
    const claim = await idempotencyKeys.claim(principal.workspaceId, key, fingerprintOf(manifest));
    if (claim.kind === 'replay') return { body: claim.body as T, replayed: true };
    let job: Job;
    try {
      job = await submit(principal, manifest, claim.jobId);
    } catch (err) {
      if (!(err instanceof StartOutcomeUnknownError)) {
        await idempotencyKeys.release(principal.workspaceId, key, claim.holder).catch((e) => log.warn({ err: String(e), key }, 'submit: could not let an idempotency key go'));
      }
      throw err;
    }
    const body = render(job);
    await idempotencyKeys.complete(principal.workspaceId, key, job.id, 201, body);
    return { body, replayed: false };
  }

  return {
    get,
    insertUnstarted,

    /** Visible jobs not yet terminal per workspace and state (the queue-depth gauge; one index-only scan). */
    async openJobCounts(): Promise<Array<{ workspaceId: string; state: string; count: number }>> {
      const rows = await db('jobs')
        .where({ workflow_started: true })
        .whereNotIn('state', TERMINAL_STATES as JobState[])
        .groupBy('workspace_id', 'state')
        .select('workspace_id', 'state', db.raw('count(*)::int as count'));
      return rows.map((r: { workspace_id: string; state: string; count: number }) => ({ workspaceId: r.workspace_id, state: r.state, count: r.count }));
    },

    submit,
    submitWithKey,
    /** Removes expired idempotency keys (the reconciler's sweep). */
    sweepIdempotencyKeys: () => idempotencyKeys.sweep(),

    list: (principal: Principal, filter: JobListFilter) => listJobs(principal.workspaceId, filter),

    /** Cancels the job; `endedAs` says it had already ended (and was left as it is). */
    async cancel(principal: Principal, jobId: string): Promise<{ job: Job; endedAs?: string }> {
      const job = await get(principal, jobId);
      const { row, endedAs } = await transitions.cancel(jobId, job.workspaceId, principal);
      return { job: row ? jobFromRow(row) : await get(principal, jobId), endedAs };
    },

    async retry(principal: Principal, jobId: string): Promise<Job> {
      const job = await get(principal, jobId);
      if (job.state !== 'FAILED' && job.state !== 'TIMED_OUT') throw invalidState(`job is ${job.state}; only failed or timed-out jobs can be retried`);
      await transitions.retry(job.workspaceId, { spec: specOf(job), timings, attempt: job.attempt + 1, version: job.version, manualRetry: true }, principal);
      return get(principal, jobId);
    },

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
      for (const row of rows) {
        if (await workflows.exists(row.id)) {
          await markStarted(row.id, row.workspace_id);
          started++;
        } else {
          // Still old: a submit carried out again meanwhile made it young and owns it now.
          removed += await db('jobs')
            .where({ id: row.id, workflow_started: false })
            .where('created_at', '<', db.raw('now() - make_interval(secs => ?)', [olderThanMs / 1000]))
            .delete();
        }
      }
      if (started + removed > 0) log.info({ started, removed }, 'reconciled interrupted submits');
      return { started, removed };
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
