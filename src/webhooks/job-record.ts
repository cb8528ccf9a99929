import { type Job, publicFieldsOf } from '../jobs/record';

/**
 * The job as a webhook event carries it (CONTRACT §7: the form Surface B answers with, never its
 * env). Written here rather than borrowed from the surface, so the worker that delivers events
 * depends on no HTTP surface; a unit test holds it equal to Surface B's job.
 */
export function webhookJob(job: Job) {
  return { id: job.id, ...publicFieldsOf(job), state: job.state, agentId: job.agentId };
}
