import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { attemptLiveness } from '../src/agents/liveness';
import { applyProjection } from '../src/jobs/projection';
import { auditTemporalCancel } from '../src/jobs/temporal-actions';
import { type ResetRunOf, takeOverFromReset } from '../src/jobs/reset-takeover';
import { type AttemptCheck, CANCELLED_IN_TEMPORAL, type ProjectJobInput, type Rebase } from '../workflows/definitions';
import type { BillingPeriodActivities, JobActivities, MeterActivities } from './types';
import { openDueInvoices } from '../src/billing/invoices';
import { meterTick } from '../src/billing/meter';
import { meterLastTick } from '../src/metrics/registry';
import { DEFAULT_PERIODS, type PeriodSettings, closePeriods } from '../src/billing/periods';

export interface ActivityDeps {
  db: Knex;
  /** How long a cancelled job may still run: what stopping one for a hard cap may still cost. */
  cancelGraceMs?: number;
  /** How billing periods close and how long their drafts wait. */
  periods?: PeriodSettings;
  /** What Temporal says of a reset run (src/jobs/reset-takeover.ts); a worker without it refuses takeovers. */
  resetRunOf?: ResetRunOf;
}

/** Activities are built from injected dependencies; they read no environment and are idempotent. */
export function createActivities({
  db,
  cancelGraceMs = 30_000,
  periods = DEFAULT_PERIODS,
  resetRunOf,
}: ActivityDeps): JobActivities & MeterActivities & BillingPeriodActivities {
  const heartbeat = () => Context.current().heartbeat();
  return {
    async projectJob(input: ProjectJobInput): Promise<Rebase | void> {
      if (input.takeover) {
        const run = Context.current().info.workflowExecution;
        if (!resetRunOf || !run) throw new Error('this worker cannot take a reset run over: it has no Temporal client');
        return takeOverFromReset(db, input, run, resetRunOf);
      }
      if (input.snapshot.failureReason !== CANCELLED_IN_TEMPORAL) {
        await applyProjection(db, input);
        return;
      }
      // The row and its audit entry together: written apart, a crash between them (or a reader
      // between them) left a cancelled job with no entry, and the retry found the row written.
      await db.transaction(async (trx) => {
        if (await applyProjection(trx, input)) await auditTemporalCancel(trx, input);
      });
    },

    checkAttempt: ({ leaseId, lostAfterMs }): Promise<AttemptCheck> => attemptLiveness(db, leaseId, lostAfterMs),

    async meterWindow({ windowEnd }) {
      const report = await meterTick(db, new Date(windowEnd), {
        cancelGraceSeconds: cancelGraceMs / 1000,
        periods,
        progress: heartbeat,
      });
      meterLastTick.set(Date.now() / 1000);
      return report;
    },

    async closeBillingPeriods({ at }) {
      const closed = await closePeriods(db, { ...periods, at: new Date(at), progress: heartbeat });
      return { ...closed, graceMs: periods.graceSeconds * 1000 };
    },

    openInvoices: async ({ at }) => ({ opened: await openDueInvoices(db, new Date(at), { progress: heartbeat }) }),
  };
}
