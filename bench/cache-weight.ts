import { Client } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { JobWorkflowInput } from '../workflows/definitions';
import { rssMiB } from './load';
import { runPool, sleep } from './stats';

// What one run in a worker's workflow cache weighs: a worker of its own fills its cache with
// `runs` open runs of the job workflow (each queued, as a job no agent has taken), and then with
// as many of the bare protocol workflow (the same SDK's floor), and the growth of this process's
// resident memory is divided by the runs cached. Garbage collected late counts too, so this is
// an upper bound; the two are measured alike, one after the other.

const noop = () => undefined;
const logger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

async function weigh(o: {
  address: string;
  namespace: string;
  runs: number;
  workflowsPath: string;
  type: string;
  args: (id: string) => unknown[];
}): Promise<number> {
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: o.workflowsPath, logger });
  const native = await NativeConnection.connect({ address: o.address });
  const taskQueue = `cache-weight-${o.type}-${Date.now()}`;
  const worker = await Worker.create({
    connection: native,
    namespace: o.namespace,
    taskQueue,
    workflowBundle,
    maxCachedWorkflows: o.runs,
  });
  const running = worker.run();
  const client = new Client({ connection: native, namespace: o.namespace });
  try {
    await sleep(1000);
    const before = rssMiB();
    let i = 0;
    await runPool(o.runs, 20, async () => {
      const id = `${taskQueue}-${i++}`;
      await client.workflow.start(o.type, { workflowId: id, taskQueue, args: o.args(id), requestEagerStart: true });
    });
    for (let t = 0; worker.getStatus().numCachedWorkflows < o.runs && t < 600; t++) await sleep(100);
    await sleep(1000);
    const cached = worker.getStatus().numCachedWorkflows;
    return ((rssMiB() - before) * 1024) / cached;
  } finally {
    // The runs stay open on the server, on a task queue nobody serves any more: terminated, they cost nothing.
    for (let i = 0; i < o.runs; i += 1)
      await client.workflow.getHandle(`${taskQueue}-${i}`).terminate('bench done').catch(noop);
    worker.shutdown();
    await running;
    await native.close();
  }
}

/** KiB per cached run, of the job workflow and of the bare protocol workflow. */
export async function cacheWeight(o: { address: string; namespace: string; runs: number }) {
  const now = new Date().toISOString();
  const input = (id: string): JobWorkflowInput => ({
    spec: {
      jobId: id,
      workspaceId: 'ws_bench',
      type: 'COMMAND',
      command: 'true',
      labels: { bench: 'cache' },
      timeoutSeconds: 3600,
      retry: { maxAttempts: 1, backoffSeconds: 10 },
      createdAt: now,
    },
    timings: { agentLostAfterMs: 90_000, cancelGraceMs: 30_000, agentLossBackoffMs: 10_000, agentLossMaxAttempts: 3 },
    attempt: 1,
    version: 0,
  });
  const job = await weigh({
    ...o,
    workflowsPath: require.resolve('../workflows'),
    type: 'job',
    args: (id) => [input(id)],
  });
  const bare = await weigh({
    ...o,
    workflowsPath: require.resolve('./bare-workflow'),
    type: 'bareProtocolJob',
    args: () => [],
  });
  return { job, bare };
}
