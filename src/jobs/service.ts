import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { NOTIFY } from '../db/channels';
import { AppError, invalidState, notFound } from '../shared/errors';
import { newId } from '../shared/ids';
import type { Principal } from '../auth/principal';
import { enforceSubmitQuota } from '../auth/quotas';
import { type JobWorkflowClient, WorkflowClosedError } from '../temporal/job-workflow-client';
import type { JobSnapshot, JobSpec, JobWorkflowInput } from '../../workflows/definitions';
import { applyProjection } from './projection';
import { type Job, jobFromRow } from './record';
import type { JobListFilter, Manifest } from './schemas';
import { listJobs } from './list';

export interface JobsDeps {
  db: Knex;
  workflows: JobWorkflowClient;
  config: Config;
  log: Logger;
}

export function createJobsService({ db, workflows, config, log }: JobsDeps) {
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

  /** The job if it is the caller's and acknowledged; another workspace's job is simply not found. */
  async function get(principal: Principal, jobId: string): Promise<Job> {
    const row = await db('jobs').where({ id: jobId, workspace_id: principal.workspaceId, workflow_started: true }).first();
    if (!row) throw notFound('job');
    return jobFromRow(row);
  }

  // One statement, so one round trip on the submit's critical path; the NOTIFY goes out on commit.
  async function markStarted(jobId: string, workspaceId: string) {
    await db.raw(
      `WITH started AS (UPDATE jobs SET workflow_started = true WHERE id = ? AND NOT workflow_started RETURNING id)
       SELECT pg_notify(?, ?) FROM started`,
      [jobId, NOTIFY.jobQueued, workspaceId],
    );
  }

  /** Inserts the not-yet-acknowledged row: step one of submit, invisible until its workflow exists. */
  async function insertUnstarted(principal: Principal, manifest: Manifest): Promise<Job> {
    // The hot path: a key without quotas needs no lock and no count.
    if (!principal.hasQuotas) return insertRow(db, principal, manifest);
    return db.transaction(async (trx) => {
      await enforceSubmitQuota(trx, principal.keyId, manifest.type);
      return insertRow(trx, principal, manifest);
    });
  }

  async function insertRow(trx: Knex | Knex.Transaction, principal: Principal, manifest: Manifest): Promise<Job> {
    const now = new Date().toISOString();
    const [row] = await trx('jobs')
      .insert({
        id: newId('job'),
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
      })
      .returning('*');
    return jobFromRow(row);
  }

  return {
    get,
    insertUnstarted,

    async submit(principal: Principal, manifest: Manifest): Promise<Job> {
      if (manifest.type !== 'COMMAND') {
        throw new AppError('job.unsupported_type', `Job type ${manifest.type} is not supported`, { supported: ['COMMAND'] });
      }
      const job = await insertUnstarted(principal, manifest);
      try {
        await workflows.start({ spec: specOf(job), timings, attempt: 1, version: 0 });
      } catch (err) {
        // Not acknowledged: take the row back. If that fails too, the reconciler settles it.
        await db('jobs').where({ id: job.id, workflow_started: false }).delete().catch(() => undefined);
        throw err;
      }
      await markStarted(job.id, job.workspaceId);
      return job;
    },

    list: (principal: Principal, filter: JobListFilter) => listJobs(db, principal.workspaceId, filter),

    async cancel(principal: Principal, jobId: string): Promise<Job> {
      const job = await get(principal, jobId);
      let snapshot: JobSnapshot;
      try {
        snapshot = await workflows.cancel(jobId);
      } catch (err) {
        if (err instanceof WorkflowClosedError) throw invalidState(`job is already ${job.state}`);
        throw err;
      }
      await applyProjection(db, { snapshot, workspaceId: job.workspaceId, attemptEnds: [] });
      return get(principal, jobId);
    },

    async retry(principal: Principal, jobId: string): Promise<Job> {
      const job = await get(principal, jobId);
      if (job.state !== 'FAILED' && job.state !== 'TIMED_OUT') throw invalidState(`job is ${job.state}; only failed or timed-out jobs can be retried`);
      const input: JobWorkflowInput = { spec: specOf(job), timings, attempt: job.attempt + 1, version: job.version, manualRetry: true };
      // The finished run may still be closing for a few milliseconds after its last projection.
      let started = false;
      for (let i = 0; i < 5 && !started; i++) {
        started = await workflows.start(input);
        if (!started) await new Promise((r) => setTimeout(r, 100));
      }
      if (!started) throw invalidState('job is already being retried');
      await applyProjection(db, {
        workspaceId: job.workspaceId,
        attemptEnds: [],
        snapshot: {
          jobId, state: 'QUEUED', attempt: input.attempt, leaseId: null, agentId: null, startedAt: null, finishedAt: null,
          exitCode: null, runtimeMs: null, failureReason: null, error: null, availableAt: new Date().toISOString(), version: job.version + 1,
        },
      });
      return get(principal, jobId);
    },

    /**
     * Settles rows whose submit was interrupted between its steps: a row whose workflow exists
     * was acknowledged (or about to be) and becomes visible; one without a workflow never was,
     * and is removed. Nothing acknowledged is lost, nothing is run twice.
     */
    async reconcile(olderThanMs = 15_000): Promise<{ started: number; removed: number }> {
      const rows = await db('jobs')
        .where({ workflow_started: false })
        .where('created_at', '<', new Date(Date.now() - olderThanMs).toISOString())
        .select('id', 'workspace_id')
        .limit(500);
      let started = 0;
      let removed = 0;
      for (const row of rows) {
        if (await workflows.exists(row.id)) {
          await markStarted(row.id, row.workspace_id);
          started++;
        } else {
          removed += await db('jobs').where({ id: row.id, workflow_started: false }).delete();
        }
      }
      if (started + removed > 0) log.info({ started, removed }, 'reconciled interrupted submits');
      return { started, removed };
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
