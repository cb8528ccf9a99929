import type { AttemptCheck, ProjectJobInput } from '../workflows/definitions';

/** The activities the job workflow calls; the workflow imports this file for types only. */
export interface JobActivities {
  projectJob(input: ProjectJobInput): Promise<void>;
  checkAttempt(input: { leaseId: string; lostAfterMs: number }): Promise<AttemptCheck>;
}
