import type { Client } from '@temporalio/client';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { DeploymentSettings } from '../config';

// Worker Versioning (Worker Deployments): a versioned worker polls as one version of its
// deployment, and the deployment's routing (its current and ramping versions) decides which
// version gets a new run's first task. How an operator moves that routing: docs/guides/upgrades.md.

/** The worker's versioning options; undefined keeps it unversioned. */
export function deploymentOptionsOf(d: DeploymentSettings | undefined): WorkerDeploymentOptions | undefined {
  if (!d) return undefined;
  return {
    useWorkerVersioning: true,
    version: { deploymentName: d.deploymentName, buildId: d.buildId },
    // Every workflow type declares its own behaviour (workflows/*.ts, held by a unit test); a type
    // that forgot to is pinned, the choice that never runs a run on code it did not start on.
    defaultVersioningBehavior: 'PINNED',
  };
}

/** The deployment's routing as the server tells it, or undefined while it has no such deployment. */
async function routingOf(client: Client, deploymentName: string) {
  try {
    const { workerDeploymentInfo, conflictToken } = await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName,
    });
    const routing = workerDeploymentInfo?.routingConfig;
    return {
      conflictToken,
      current: routing?.currentDeploymentVersion?.buildId || undefined,
      ramping: routing?.rampingDeploymentVersion?.buildId || undefined,
      // Set once anyone has set a current or ramping version, unversioned workers included.
      everRouted: Boolean(routing?.currentVersionChangedTime || routing?.rampingVersionChangedTime),
    };
  } catch (err) {
    if ((err as { code?: number }).code === 5 /* NOT_FOUND */) return undefined;
    throw err;
  }
}

/**
 * TEMPORAL_PROMOTE_IF_NO_CURRENT: makes this worker's version current when nobody has ever set the
 * deployment's routing (a fresh install, or the first versioned deploy over unversioned workers).
 * It never replaces a choice: not a current or ramping version, nor an operator's return to
 * unversioned workers; the change carries the conflict token of the read that found none, so a
 * change in between makes it fail, and the next read sees it.
 * The version exists on the server only once this worker's pollers have reached it, so it asks
 * again until then, for `withinMs` at most. Returns what it found or did.
 */
export async function promoteIfNoCurrent(
  client: Client,
  d: DeploymentSettings,
  log: Logger,
  withinMs = 30_000,
): Promise<'promoted' | 'left' | 'gave-up'> {
  const { deploymentName, buildId } = d;
  const giveUpAt = Date.now() + withinMs;
  let lastError: unknown;
  while (Date.now() < giveUpAt) {
    try {
      const routing = await routingOf(client, deploymentName);
      if (routing?.everRouted) {
        const { current, ramping } = routing;
        log.info({ deploymentName, buildId, current, ramping }, 'deployment has a routed version: left as it is');
        return 'left';
      }
      if (routing) {
        await client.workflowService.setWorkerDeploymentCurrentVersion({
          namespace: client.options.namespace,
          deploymentName,
          buildId,
          conflictToken: routing.conflictToken,
          identity: client.options.identity,
        });
        log.info({ deploymentName, buildId }, 'made this version current: the deployment had none');
        return 'promoted';
      }
    } catch (err) {
      // The version not registered yet, or another writer's change (the next read tells).
      lastError = err;
    }
    await sleep(500);
  }
  log.error(
    { deploymentName, buildId, err: String(lastError ?? 'the deployment never appeared') },
    'could not make this version current; set it with `temporal worker deployment set-current-version`',
  );
  return 'gave-up';
}
