import { Runtime } from '@temporalio/worker';
import type { Context } from 'mocha';
import { silentSdkLogger, startTestEnv, stopTestEnv } from './support/env';
import { logMark, loggedSince } from './support/service-log';

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

let mark = 0;
/** A failing test's report ends with the warnings the services logged while it ran. */
export const mochaHooks = {
  beforeEach(): void {
    mark = logMark();
  },
  afterEach(this: Context): void {
    if (this.currentTest?.state !== 'failed') return;
    const logged = loggedSince(mark);
    const err = this.currentTest.err;
    // In the failure's own report, which CI keeps even when it keeps nothing else.
    if (!logged.length || !err) return;
    const extra = `\n\nservices logged during the test:\n${logged.map((l) => `  ${l}`).join('\n')}`;
    err.message += extra;
    // Mocha prints the message from the stack, above its frames.
    if (err.stack) err.stack = /\n\s+at\s/.test(err.stack) ? err.stack.replace(/\n\s+at\s[\s\S]*$/, (frames) => extra + frames) : err.stack + extra;
  },
};
