import type { Client } from '@temporalio/client';
import type { Principal } from '../../src/auth/principal';
import { silentAttempts } from '../../src/agents/liveness';
import type { Notifier } from '../../src/db/notifier';
import { createJobsService } from '../../src/jobs/service';
import { createTransitions } from '../../src/jobs/transitions';
import { createJobWorkflowClient } from '../../src/temporal/job-workflow-client';
import { suiteDataKeys } from './data-keys';
import { quietLog, testEnv } from './env';
import { knowSuiteJob } from './temporal-client';

/** The job workflows over `client` on the suite's task queue, as the API reaches them (not eagerly). */
export const suiteWorkflows = (client: Client) =>
  createJobWorkflowClient(client, {
    taskQueue: testEnv().config.temporal.taskQueue,
    retryAfterSeconds: 1,
    eager: false,
    knowJob: knowSuiteJob,
  });

/** `real` with its workflow start replaced (a fault, or something done while the start is under way). */
export function withStart(real: Client, start: Client['workflow']['start']): Client {
  const workflow = Object.create(real.workflow, { start: { value: start } });
  return Object.create(real, { workflow: { value: workflow } }) as Client;
}

/**
 * The jobs service over `client`, on the suite's database; `adjust` may replace a transition;
 * `notifier`: the instance's listener, which a submit offers its job through while it is alone.
 */
export async function jobsServiceOn(
  client: Client,
  adjust?: (t: ReturnType<typeof createTransitions>) => void,
  notifier?: Notifier,
) {
  const { config, db } = testEnv();
  const workflows = suiteWorkflows(client);
  const transitions = createTransitions({ db, workflows, config, log: quietLog, silentAttempts, notifier });
  adjust?.(transitions);
  const jobs = createJobsService({
    db,
    dataKeys: await suiteDataKeys(),
    workflows,
    transitions,
    config,
    log: quietLog,
  });
  return { workflows, jobs };
}

/** A member's API key in `workspaceId`, without quotas: its submits take the hot path. */
export const memberOf = (workspaceId: string): Principal => ({
  workspaceId,
  kind: 'user',
  credential: 'api_key',
  role: 'member',
  actor: { type: 'key', id: 'key_test' },
  rateSubject: `ws:${workspaceId}`,
  credentialId: 'test',
});
