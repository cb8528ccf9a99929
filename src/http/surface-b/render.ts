import type { Agent } from '../../agents/record';
import type { Job, JobAttempt } from '../../jobs/record';
import { jobFields } from '../job-fields';
import type { LogEvent } from '../../logs/service';

// Surface B's spelling of the service's records (CONTRACT §3, §5): states as written, `id`.

export function jobB(job: Job) {
  return { id: job.id, ...jobFields(job), state: job.state, agentId: job.agentId };
}

/** An attempt of `GET /v0/jobs/{id}/attempts`: named field by field, so nothing else (a lease) slips out. */
export function attemptB(a: JobAttempt) {
  return {
    attempt: a.attempt,
    agentId: a.agentId,
    assignedAt: a.assignedAt,
    lastHeartbeatAt: a.lastHeartbeatAt,
    endedAt: a.endedAt,
    endReason: a.endReason,
    exitCode: a.exitCode,
    runtimeMs: a.runtimeMs,
  };
}

export function agentB(a: Agent) {
  return {
    id: a.id,
    name: a.name,
    labels: a.labels,
    state: a.state,
    version: a.version,
    region: a.region,
    lastHeartbeatAt: a.lastHeartbeatAt,
    currentJobs: a.runningJobs,
    drainDeadlineAt: a.drainDeadlineAt,
    createdAt: a.createdAt,
  };
}

/** A stored log event as a line of `GET /v0/jobs/{id}/logs`; a truncation marker says what was dropped. */
export function logLineB(e: LogEvent) {
  if (e.kind === 'truncated') {
    return {
      seq: e.seq,
      stream: 'system' as const,
      line: `[${e.droppedLines} lines (${e.droppedBytes} bytes) dropped past the log limit]`,
      ts: e.ts,
      truncated: { droppedLines: e.droppedLines, droppedBytes: e.droppedBytes },
    };
  }
  return { seq: e.seq, stream: e.stream as 'stdout' | 'stderr', line: e.line, ts: e.ts };
}
