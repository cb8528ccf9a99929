// temporal: dev, server
import assert from 'node:assert/strict';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import type { ManagedChild } from '../../src/stack/child';
import { spawnWorker } from '../support/worker-process';
import { quietLog, testEnv } from '../support/env';
import {
  inState,
  newWorkspace,
  ok,
  pollOne,
  resultOf,
  retrieve,
  sleep,
  waitForJob,
  heartbeatInBackground,
} from '../support/http';

// The worker is killed with SIGKILL while a job runs: no shutdown, no flushing. A new worker
// picks the workflow up from its history and the job finishes as if nothing happened.
describe('kill -9 of the worker mid-job', () => {
  const taskQueue = `killtest-${Date.now()}`;
  let api: ServiceProcess;
  let worker: ManagedChild | undefined;

  before(async () => {
    api = await startServiceProcess({
      config: testEnv().configWith({ TEMPORAL_TASK_QUEUE: taskQueue }),
      log: quietLog,
      api: true,
      worker: false,
    });
  });

  after(async () => {
    await worker?.stop(2000);
    await api.stop();
  });

  it('loses nothing: the running job, its logs and a job submitted while no worker ran all finish', async () => {
    const { key } = await newWorkspace();
    const url = api.url!;
    worker = await spawnWorker(taskQueue, 'worker-1');
    const reg = await ok('/compute/nodes/register', { name: 'survivor', labels: {} }, key, url);
    const node = { nodeId: reg.nodeId as string, nodeKey: reg.apiKey as string };
    const first = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo one' }, key, url);
    const held = (await pollOne(node))!;
    assert.equal(held.job_id, first.job_id);
    await ok(
      '/compute/nodes/logs',
      {
        nodeId: node.nodeId,
        job_id: held.job_id,
        leaseId: held.leaseId,
        lines: [{ seq: 1, stream: 'stdout', line: 'before the crash' }],
      },
      node.nodeKey,
      url,
    );

    process.kill(-worker.pid, 'SIGKILL');
    assert.equal(await worker.exited, null, 'killed by the signal');

    // No worker: the API still acknowledges a submit, and the agent heartbeats as a live agent
    // does, in the background, until its result: through the outage and the new worker's start.
    const second = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo two' }, key, url);
    const heartbeats = heartbeatInBackground(node, [held.job_id], url);
    // Longer than the loss window: a job whose heartbeats were not heard would be lost by now.
    await sleep(testEnv().config.durations.agentLostAfterMs + 500);
    worker = await spawnWorker(taskQueue, 'worker-2');
    assert.equal((await retrieve(key, first.job_id)).state, 'running', 'the agent was never counted lost');

    // As an agent does, it stops naming the job once it reports it: a heartbeat after the result
    // would rightly be told to stop a finished job.
    const cancels = await heartbeats.stop();
    const done = await ok('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey, url);
    assert.equal(done.state, 'succeeded');
    assert.ok(cancels.length >= 5, `${cancels.length} heartbeats`);
    assert.deepEqual(
      cancels.filter((c) => c.length > 0),
      [],
      'no heartbeat told the agent to stop its job',
    );
    const next = (await pollOne(node, 10))!;
    assert.equal(next.job_id, second.job_id);
    await ok('/compute/nodes/result', resultOf(node, next, 0), node.nodeKey, url);
    await waitForJob(key, second.job_id, inState('succeeded'));
    const logs = await testEnv().db('job_logs').where({ job_id: first.job_id }).select('line');
    assert.deepEqual(
      logs.map((l) => l.line),
      ['before the crash'],
    );
  });
});
