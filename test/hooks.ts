import type { Context } from 'mocha';
import fs from 'node:fs';
import {
  type Lane,
  SOLE_LANE,
  type SuiteStack,
  attachTestEnv,
  detachTestEnv,
  installQuietSdkRuntime,
  startSuiteStack,
} from './support/env';
import { logMark, loggedSince } from './support/service-log';

let owned: SuiteStack | undefined;

// One real stack (Temporal dev server, PostgreSQL, MinIO) for the whole run; each test isolates
// its data in a workspace of its own. `npm run test:serial` runs every file here, one after
// another. `npm test` (scripts/test-suite.ts) starts the stack and runs two lanes of files on it
// at once: the shared lane in its own process, the isolated lane in a mocha process that attaches
// to the stack COMPUTE_TEST_STACK names. `mocha <file>` alone starts a stack of its own.
export async function mochaGlobalSetup(): Promise<void> {
  installQuietSdkRuntime();
  const started = Date.now();
  const attach = process.env.COMPUTE_TEST_STACK;
  if (attach) {
    const { suite, lane } = JSON.parse(fs.readFileSync(attach, 'utf8')) as {
      suite: Omit<SuiteStack, 'stack'>;
      lane: Lane;
    };
    await attachTestEnv(suite, lane);
  } else {
    owned = await startSuiteStack();
    await attachTestEnv(owned, SOLE_LANE);
  }
  process.stderr.write(`  test ${attach ? 'lane' : 'stack'} ready in ${Date.now() - started} ms\n`);
}

export async function mochaGlobalTeardown(): Promise<void> {
  await detachTestEnv(owned);
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
    if (err.stack)
      err.stack = /\n\s+at\s/.test(err.stack)
        ? err.stack.replace(/\n\s+at\s[\s\S]*$/, (frames) => extra + frames)
        : err.stack + extra;
  },
};
