import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';

// The bare service's worker (bench/bare-service-server.ts), a process of its own as our worker is
// when it runs apart: the bare job workflow only, no activities, with our worker's options (its
// sticky queue timeout and its workflow cache).
//
// env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, WORKFLOW_CACHE_SIZE

async function main() {
  // As ours: the SDK's own log lines at warn and above.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./bare-service-workflow'),
    logger: new DefaultLogger('WARN'),
  });
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: process.env.TASK_QUEUE!,
    workflowBundle,
    stickyQueueScheduleToStartTimeout: '2s',
    maxCachedWorkflows: Number(process.env.WORKFLOW_CACHE_SIZE ?? 1000),
  });
  process.on('SIGTERM', () => worker.shutdown());
  process.stdout.write('worker running\n');
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
