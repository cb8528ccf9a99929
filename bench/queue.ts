import type { ApiClient } from './api';
import { pidOf, rssMiB, untilIdle, watchLoad } from './load';
import type { BenchStack } from './stack';
import { runPool } from './stats';

// The queue phase of `npm run bench:dispatch`: a deep queue of jobs no agent takes, then every one
// of them cancelled. What each costs, and what the open jobs weigh in the API + worker process
// (its workflow cache) and in the Temporal server.

export interface QueueResult {
  jobs: number;
  submitPerSecond: number;
  cancelPerSecond: number;
  submitLoad: string[];
  cancelLoad: string[];
  /** MiB: this process and the Temporal server, before, with the queue full, after the cancels. */
  rss: { process: number[]; temporal: number[] };
  cachedWorkflows: number;
  cacheSize: number;
}

export async function deepQueue(o: {
  stack: BenchStack;
  api: ApiClient;
  jobs: number;
  concurrency: number;
}): Promise<QueueResult> {
  const { stack, api } = o;
  const temporal = pidOf('temporal');
  const memory = () => ({ process: rssMiB(process.pid), temporal: temporal ? rssMiB(temporal) : NaN });
  const ids: string[] = [];
  await untilIdle();
  const before = memory();
  const submitLoad = watchLoad(stack.service.db);
  const submitMs = await runPool(
    o.jobs,
    o.concurrency,
    async () => void ids.push(await api.submit(stack.userKey, { queue: 'nobody' })),
  );
  // A submit's whole cost includes its run's first workflow task, which the worker may still be
  // working through when the last submit is answered (when it had no slot for an eager start).
  await untilIdle();
  const submitLines = submitLoad.stop(o.jobs);
  const full = memory();
  const cachedWorkflows = stack.service.worker?.getStatus().numCachedWorkflows ?? 0;
  const cancelLoad = watchLoad(stack.service.db);
  let next = 0;
  const cancelMs = await runPool(o.jobs, o.concurrency, async () => {
    const id = ids[next++];
    await api.call('/compute/jobs/cancel', { job_id: id }, stack.userKey);
  });
  await untilIdle();
  const cancelLines = cancelLoad.stop(o.jobs);
  const after = memory();
  return {
    jobs: o.jobs,
    submitPerSecond: (o.jobs / submitMs) * 1000,
    cancelPerSecond: (o.jobs / cancelMs) * 1000,
    submitLoad: submitLines,
    cancelLoad: cancelLines,
    rss: {
      process: [before.process, full.process, after.process],
      temporal: [before.temporal, full.temporal, after.temporal],
    },
    cachedWorkflows,
    cacheSize: stack.config.worker.workflowCacheSize,
  };
}
