import fs from 'node:fs';
import path from 'node:path';
import { startChild } from '../src/stack/child';
import { freePort } from '../src/stack/ports';
import { NODE_FLAGS } from '../src/runtime/node-flags';
import { type BareStack, BUILT_ROOT, buildService, databaseBeside } from './stack';

/**
 * The database of the bare service, beside ours in the same PostgreSQL: PostgreSQL wakes every
 * LISTEN connection of a database for each NOTIFY, whatever its channel, so in one database each
 * side's NOTIFYs would cost the other's listener a transaction (bench/load.ts counts both).
 */
export const BARE_DATABASE = 'bare_service';

/**
 * The bare service (bench/bare-service-server.ts) and its worker (bench/bare-service-worker.ts)
 * as processes of their own on the bench's stack, compiled and started with the flags our API and
 * worker get (bench/stack.ts spawnService), with our pool size, workflow cache and loss clock.
 * Resolves once its worker polls and its server answers.
 */
export async function startBareService(
  stack: BareStack,
): Promise<{ url: string; pids: Record<number, string>; stop(): Promise<void> }> {
  await buildService();
  const { config } = stack;
  const port = await freePort();
  const logDir = path.join(stack.dataDir, 'logs');
  const env = {
    DATABASE_URL: await databaseBeside(stack, BARE_DATABASE),
    TEMPORAL_ADDRESS: stack.temporalAddress,
    TEMPORAL_NAMESPACE: config.temporal.namespace,
    TASK_QUEUE: `bench-bare-service-${Date.now()}`,
    PORT: String(port),
    POOL_MAX: String(config.dbPoolMax),
    WORKSPACE_ID: stack.workspaceId,
    AGENT_LOST_AFTER_MS: String(config.durations.agentLostAfterMs),
    WORKFLOW_CACHE_SIZE: String(config.worker.workflowCacheSize),
  };
  const spawn = (what: string) =>
    startChild({
      command: process.execPath,
      // With the flags our API (the server) and worker get.
      args: [
        ...NODE_FLAGS[what === 'server' ? 'api' : 'worker'],
        path.join(BUILT_ROOT, `bench/bare-service-${what}.js`),
      ],
      env,
      logFile: path.join(logDir, `bare-service-${what}.log`),
    });
  const worker = spawn('worker');
  const server = spawn('server');
  const stop = async () => {
    await server.stop();
    await worker.stop();
  };
  const url = `http://127.0.0.1:${port}`;
  const ready = async () =>
    fs.readFileSync(path.join(logDir, 'bare-service-worker.log'), 'utf8').includes('worker running') &&
    (await fetch(`${url}/api/compute/nodes/register`, { method: 'POST', body: '{}' }).then(
      (r) => r.ok,
      () => false,
    ));
  for (const started = Date.now(); !(await ready()); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() - started > 60_000) {
      await stop();
      throw new Error(`the bare service did not start; see ${logDir}`);
    }
  }
  return { url, pids: { [server.pid]: 'bare service', [worker.pid]: 'bare service worker' }, stop };
}
