import { type ApiClient, apiClient } from './api';
import { type BareStack, spawnService } from './stack';

/**
 * The service as compose runs it: `npm run api` and `npm run worker` as processes of their own on
 * the bench's stack, on a task queue of their own (the bench's in-process service keeps its
 * queue). A submit through this API cannot start its run eagerly: its first workflow task goes
 * through Temporal's matching to the worker process, as in production. PROFILE_DIR=dir writes a
 * V8 CPU profile of each process on stop (dir/api, dir/worker; open them in Chrome's DevTools).
 */
export async function startComposeShape(
  stack: BareStack,
  /** More settings for both processes (a traced pair: OTEL_EXPORTER_OTLP_ENDPOINT). */
  more: Record<string, string> = {},
): Promise<{ api: ApiClient; url: string; pids: Record<number, string>; stop(): Promise<void> }> {
  const env = {
    ...more,
    TEMPORAL_TASK_QUEUE: `bench-compose-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`,
    WORKER_PORT: '0',
    TEMPORAL_METRICS_PORT: '0',
    // The in-process service meters; this worker leaves the schedules alone.
    METER_TICK_SECONDS: '0',
  };
  const profile = (what: string) =>
    process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}/${what}`] : [];
  const worker = await spawnService(stack, 'worker', env, profile('worker'));
  const api = await spawnService(stack, 'api', env, profile('api')).catch(async (err) => {
    await worker.stop();
    throw err;
  });
  return {
    api: apiClient(api.url!),
    url: api.url!,
    pids: { [api.pid]: 'API process', [worker.pid]: 'worker process' },
    async stop() {
      await api.stop();
      await worker.stop();
    },
  };
}
