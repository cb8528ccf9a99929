import assert from 'node:assert/strict';
import { loadWorkerConfig } from '../../src/config';
import { deploymentOptionsOf } from '../../src/temporal/worker-deployment';
import * as workflows from '../../workflows';
import { DECLARED_VERSIONING } from '../../workflows/versioning';

// What Worker Versioning does with each run is declared by its workflow type; the worker's own
// default catches only a type that declares nothing, and no type should.

describe('worker versioning', () => {
  it('every workflow type declares its versioning behaviour: a job is pinned, the loops upgrade', () => {
    const declared = Object.fromEntries(
      Object.entries(workflows).map(([name, fn]) => [name, DECLARED_VERSIONING.get(fn)]),
    );
    assert.deepEqual(declared, {
      job: 'PINNED',
      webhookLane: 'AUTO_UPGRADE',
      webhookRedelivery: 'AUTO_UPGRADE',
      meter: 'AUTO_UPGRADE',
      billingPeriod: 'AUTO_UPGRADE',
    });
  });

  const worker = (env: Record<string, string>) => loadWorkerConfig({ NODE_ENV: 'test', ...env }).worker.deployment;

  it('a worker is unversioned unless given a deployment name and a build ID', () => {
    assert.equal(worker({}), undefined);
    assert.equal(deploymentOptionsOf(undefined), undefined);
  });

  it('with both, its workers poll as that version, pinned by default, and promote nothing unless told', () => {
    const d = worker({ TEMPORAL_DEPLOYMENT_NAME: 'compute', TEMPORAL_BUILD_ID: '2026-11-28.1' });
    assert.deepEqual(d, { deploymentName: 'compute', buildId: '2026-11-28.1', promoteIfNoCurrent: false });
    assert.deepEqual(deploymentOptionsOf(d), {
      useWorkerVersioning: true,
      version: { deploymentName: 'compute', buildId: '2026-11-28.1' },
      defaultVersioningBehavior: 'PINNED',
    });
    const fresh = worker({
      TEMPORAL_DEPLOYMENT_NAME: 'compute',
      TEMPORAL_BUILD_ID: 'b',
      TEMPORAL_PROMOTE_IF_NO_CURRENT: 'true',
    });
    assert.equal(fresh?.promoteIfNoCurrent, true);
  });

  it('refuses half a version, a promotion without one, and a name Temporal would refuse', () => {
    assert.throws(() => worker({ TEMPORAL_BUILD_ID: 'b' }), /set together or not at all/);
    assert.throws(() => worker({ TEMPORAL_DEPLOYMENT_NAME: 'compute' }), /set together or not at all/);
    assert.throws(() => worker({ TEMPORAL_PROMOTE_IF_NO_CURRENT: 'true' }), /needs TEMPORAL_DEPLOYMENT_NAME/);
    for (const name of ['compute.v2', 'compute:v2'])
      assert.throws(
        () => worker({ TEMPORAL_DEPLOYMENT_NAME: name, TEMPORAL_BUILD_ID: 'b' }),
        /TEMPORAL_DEPLOYMENT_NAME: .*without '\.' or ':'/,
      );
  });
});
