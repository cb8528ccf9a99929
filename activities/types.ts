import type { AttemptEnd, JobSnapshot } from '../workflows/definitions';

export interface ProjectJobInput {
  snapshot: JobSnapshot;
  workspaceId: string;
  attemptEnds: AttemptEnd[];
}

export interface AttemptCheck {
  /** Time left before the agent counts as lost; <= 0 means lost now. */
  msUntilLost: number;
  /** Time left before the agent's drain deadline requeues the job, if one is set. */
  msUntilDrainDeadline: number | null;
}

/** The activities the job workflow calls; the workflow imports this file for types only. */
export interface JobActivities {
  projectJob(input: ProjectJobInput): Promise<void>;
  checkAttempt(input: { leaseId: string; lostAfterMs: number }): Promise<AttemptCheck>;
}
