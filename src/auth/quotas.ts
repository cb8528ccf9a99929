import type { Knex } from 'knex';
import { AppError } from '../shared/errors';
import type { Quotas } from './api-keys';

// Quotas live on an API key and bound two things (CONTRACT §4): the jobs submitted with the key,
// and the jobs handed to nodes registered with it, counted over all of those nodes together.
// Checks run under a lock on the key's row, so concurrent submits or polls cannot overshoot.

const OPEN_STATES = ['QUEUED', 'RUNNING', 'CANCELLING'];
/** A concurrency slot frees when some job ends; there is no telling when, so suggest a short wait. */
const CONCURRENCY_RETRY_AFTER_SECONDS = 5;

const hasAny = (q: Quotas | null | undefined): q is Quotas =>
  Boolean(
    q && (q.maxJobsPerHour !== undefined || q.maxConcurrentJobs !== undefined || q.allowedJobTypes !== undefined),
  );

/** Locks the key's row and returns its quotas, or null when it has none (and nothing is locked). */
async function lockQuotas(trx: Knex.Transaction, keyId: string | null | undefined): Promise<Quotas | null> {
  if (!keyId) return null;
  const peek = await trx('api_keys').where({ id: keyId }).first('quotas');
  if (!hasAny(peek?.quotas)) return null;
  const row = await trx('api_keys').where({ id: keyId }).forUpdate().first('quotas');
  return row.quotas as Quotas;
}

const secondsUntilHourPasses = (oldest: Date | string) =>
  Math.max(1, Math.ceil((new Date(oldest).getTime() + 3_600_000 - Date.now()) / 1000));

/** Throws 403 or 429 `quota.exceeded` when the key may not submit this job now. Call inside the insert's transaction. */
export async function enforceSubmitQuota(
  trx: Knex.Transaction,
  keyId: string | undefined,
  jobType: string,
): Promise<void> {
  const quotas = await lockQuotas(trx, keyId);
  if (!quotas) return;
  if (quotas.allowedJobTypes && !quotas.allowedJobTypes.includes(jobType)) {
    throw new AppError('auth.forbidden', `This API key may not submit ${jobType} jobs`, {
      allowedJobTypes: quotas.allowedJobTypes,
    });
  }
  const byKey = () => trx('jobs').where({ submitted_with_key_id: keyId });
  if (quotas.maxJobsPerHour !== undefined) {
    const recent = await byKey()
      .where('created_at', '>', trx.raw("now() - interval '1 hour'"))
      .orderBy('created_at')
      .pluck('created_at');
    if (recent.length >= quotas.maxJobsPerHour) {
      throw new AppError(
        'quota.exceeded',
        `This API key may submit ${quotas.maxJobsPerHour} jobs per hour`,
        { quota: 'maxJobsPerHour', limit: quotas.maxJobsPerHour },
        secondsUntilHourPasses(recent[recent.length - quotas.maxJobsPerHour]),
      );
    }
  }
  if (quotas.maxConcurrentJobs !== undefined) {
    const [{ n }] = await byKey().whereIn('state', OPEN_STATES).count<{ n: string }[]>('* as n');
    if (Number(n) >= quotas.maxConcurrentJobs) {
      throw new AppError(
        'quota.exceeded',
        `This API key may have ${quotas.maxConcurrentJobs} unfinished jobs at once`,
        { quota: 'maxConcurrentJobs', limit: quotas.maxConcurrentJobs },
        CONCURRENCY_RETRY_AFTER_SECONDS,
      );
    }
  }
}

/**
 * What a node registered with `keyId` may take now: null for no limit, `blocked` when a count is
 * reached, else the job types it may take. Call inside the claim's transaction.
 */
export async function assignmentAllowance(
  trx: Knex.Transaction,
  keyId: string | null,
): Promise<{ blocked: boolean; types?: string[] } | null> {
  const quotas = await lockQuotas(trx, keyId);
  if (!quotas) return null;
  const attempts = () =>
    trx('job_attempts as a').join('agents as g', 'g.id', 'a.agent_id').where('g.registered_with_key_id', keyId!);
  // Claims of these nodes still waiting on the workflow's answer count as handed out.
  const [{ n: inFlight }] = await trx('jobs as j')
    .join('agents as g', 'g.id', 'j.claimed_by')
    .where('g.registered_with_key_id', keyId!)
    .where({ 'j.state': 'QUEUED' })
    .where('j.claimed_until', '>', trx.fn.now())
    .count<{ n: string }[]>('* as n');
  if (quotas.maxConcurrentJobs !== undefined) {
    const [{ n }] = await attempts().whereNull('a.ended_at').count<{ n: string }[]>('* as n');
    if (Number(n) + Number(inFlight) >= quotas.maxConcurrentJobs) return { blocked: true };
  }
  if (quotas.maxJobsPerHour !== undefined) {
    const [{ n }] = await attempts()
      .where('a.assigned_at', '>', trx.raw("now() - interval '1 hour'"))
      .count<{ n: string }[]>('* as n');
    if (Number(n) + Number(inFlight) >= quotas.maxJobsPerHour) return { blocked: true };
  }
  return { blocked: false, types: quotas.allowedJobTypes };
}
