import { Runtime } from '@temporalio/worker';
import { silentSdkLogger, startTestEnv, stopTestEnv } from './support/env';

// One real stack (Temporal dev server, PostgreSQL) for the whole run; each test isolates its
// data in a workspace of its own.
export async function mochaGlobalSetup(): Promise<void> {
  // Core's native logs go through the silent logger too: replay tests provoke expected warnings.
  Runtime.install({ logger: silentSdkLogger, telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  const started = Date.now();
  await startTestEnv();
  process.stderr.write(`  test stack ready in ${Date.now() - started} ms\n`);
}

export async function mochaGlobalTeardown(): Promise<void> {
  await stopTestEnv();
}
