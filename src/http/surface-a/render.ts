import type { Agent } from '../../agents/record';
import type { Assignment } from '../../jobs/hand-outs';
import { type Job, resourcesOf } from '../../jobs/record';
import { jobFields } from '../job-fields';
import type { JobState } from '../../../workflows/definitions';

// Surface A's spelling of the service's records (CONTRACT §3, §4).

export const stateA = (s: JobState) => s.toLowerCase().replace('_', '-');

export function jobA(job: Job) {
  return { job_id: job.id, ...jobFields(job), state: stateA(job.state), nodeId: job.agentId };
}

/** A job as a poll hands it out, with the upload URL template scoped to its job and lease. */
export function assignedJobA(
  { job, leaseId, env, traceparent }: Assignment & { env: Record<string, string> },
  artifactUploadUrl: string,
) {
  return {
    job_id: job.id,
    leaseId,
    type: job.type,
    command: job.command,
    env,
    timeoutSeconds: job.timeoutSeconds,
    attempt: job.attempt,
    labels: job.labels,
    artifacts: { paths: job.artifactPaths },
    resources: resourcesOf(job),
    artifactUploadUrl,
    ...(traceparent && { traceparent }),
  };
}

export function nodeA(a: Agent) {
  return {
    nodeId: a.id,
    name: a.name,
    labels: a.labels,
    state: a.state,
    drain: a.drain,
    drainDeadlineAt: a.drainDeadlineAt,
    lastHeartbeatAt: a.lastHeartbeatAt,
    runningJobs: a.runningJobs,
    version: a.version,
    region: a.region,
    capacity: a.capacity,
    createdAt: a.createdAt,
  };
}
