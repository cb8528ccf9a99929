import type { Knex } from 'knex';
import { attemptLiveness } from '../src/agents/liveness';
import { applyProjection } from '../src/jobs/projection';
import type { AttemptCheck, ProjectJobInput } from '../workflows/definitions';
import type { JobActivities } from './types';

export interface ActivityDeps {
  db: Knex;
}

/** Activities are built from injected dependencies; they read no environment and are idempotent. */
export function createActivities({ db }: ActivityDeps): JobActivities {
  return {
    async projectJob(input: ProjectJobInput): Promise<void> {
      await applyProjection(db, input);
    },

    checkAttempt: ({ leaseId, lostAfterMs }): Promise<AttemptCheck> => attemptLiveness(db, leaseId, lostAfterMs),
  };
}
