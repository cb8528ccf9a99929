import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { createAgentsService } from './agents/service';
import type { Config } from './config';
import type { Notifier } from './db/notifier';
import { createJobsService } from './jobs/service';
import { createLogsService } from './logs/service';
import type { JobWorkflowClient } from './temporal/job-workflow-client';

/** The composition root of the domain services; neither HTTP surface is known here. */
export function createServices(deps: { db: Knex; workflows: JobWorkflowClient; notifier: Notifier; config: Config; log: Logger }) {
  return {
    jobs: createJobsService(deps),
    agents: createAgentsService(deps),
    logs: createLogsService(deps),
    notifier: deps.notifier,
  };
}

export type Services = ReturnType<typeof createServices>;
