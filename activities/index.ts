import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { attemptLiveness } from '../src/agents/liveness';
import { applyProjection } from '../src/jobs/projection';
import type { AttemptCheck, ProjectJobInput } from '../workflows/definitions';
import type { JobActivities, MeterActivities } from './types';
import { meterTick } from '../src/billing/meter';

export interface ActivityDeps {
  db: Knex;
  /** How long a cancelled job may still run: what stopping one for a hard cap may still cost. */
  cancelGraceMs?: number;
}

/** Activities are built from injected dependencies; they read no environment and are idempotent. */
export function createActivities({ db, cancelGraceMs = 30_000 }: ActivityDeps): JobActivities & MeterActivities {
  return {
    async projectJob(input: ProjectJobInput): Promise<void> {
      await applyProjection(db, input);
    },

    checkAttempt: ({ leaseId, lostAfterMs }): Promise<AttemptCheck> => attemptLiveness(db, leaseId, lostAfterMs),

    meterWindow: ({ windowEnd }) => meterTick(db, new Date(windowEnd), { cancelGraceSeconds: cancelGraceMs / 1000, progress: () => Context.current().heartbeat() }),
  };
}
