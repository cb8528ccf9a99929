import type { VersioningBehavior } from '@temporalio/common';
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';

/** What each workflow type declared, for the test that holds every type to a declaration. */
export const DECLARED_VERSIONING = new Map<unknown, VersioningBehavior>();

/**
 * Declares what Worker Versioning does with `fn`'s runs. Only a versioned worker says so: the
 * server refuses a workflow task that declares a behaviour from a worker without a deployment
 * version ("versioning behavior cannot be specified without deployment options being set with
 * versioned mode"), and the SDK would send it from any worker. The task's deployment version tells
 * which worker this is: an unversioned one has a build ID of the SDK's making and no deployment name.
 */
export function declareVersioning<A extends unknown[], R>(
  versioningBehavior: VersioningBehavior,
  fn: (...args: A) => Promise<R>,
): void {
  DECLARED_VERSIONING.set(fn, versioningBehavior);
  setWorkflowOptions(() => (workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior } : {}), fn);
}
