import assert from 'node:assert/strict';
import { jobB } from '../../src/http/surface-b/render';
import type { Job } from '../../src/jobs/record';
import { webhookJob } from '../../src/webhooks/job-record';

// A webhook's job is Surface B's job (CONTRACT §7), kept apart so the worker depends on no surface.
describe('the job a webhook event carries', () => {
  const job: Job = {
    id: 'job_01',
    workspaceId: 'ws_01',
    type: 'COMMAND',
    command: 'echo hi',
    state: 'SUCCEEDED',
    labels: { team: 'a' },
    selector: { os: 'linux' },
    env: { SECRET: 'never sent' },
    timeoutSeconds: 60,
    priority: 5,
    pool: 'self',
    region: null,
    retry: { maxAttempts: 2, backoffSeconds: 3 },
    resources: null,
    artifactPaths: ['*.txt'],
    artifacts: [{ id: 'art_1', name: 'a.txt', size: 3, sha256: 'ab', createdAt: '2026-11-25T00:00:00.000Z' }],
    attempt: 2,
    createdAt: '2026-11-25T00:00:00.000Z',
    startedAt: '2026-11-25T00:00:01.000Z',
    finishedAt: '2026-11-25T00:00:02.000Z',
    exitCode: 0,
    runtimeMs: 1000,
    agentId: 'agent_1',
    leaseId: 'lease_1',
    failureReason: null,
    error: null,
    version: 7,
    traceParent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  };

  it('is Surface B’s job, field for field and in the same order, and never carries env', () => {
    assert.equal(JSON.stringify(webhookJob(job)), JSON.stringify(jobB(job)));
    assert.ok(!JSON.stringify(webhookJob(job)).includes('never sent'));
    // Its trace by ID only: the submit span's own ID stays inside the service.
    assert.equal(webhookJob(job).traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.ok(!JSON.stringify(webhookJob(job)).includes('b7ad6b7169203331'));
  });
});
