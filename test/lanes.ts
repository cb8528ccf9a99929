import fs from 'node:fs';
import type { Lane } from './support/env';

/**
 * `npm test` runs the suite in three lanes (scripts/test-suite.ts), chosen by folder and tag,
 * never by a list:
 *
 * - **unit**: `test/unit/`, no service at all, in a mocha process of its own without the stack
 *   (`npm run test:unit` runs it alone, in seconds).
 * - **isolated**: files that say `// lane: isolated` on their first line. Its process runs an API
 *   and a worker on a task queue of its own and none of the stack's singletons: the webhook and
 *   meter-event relays and the billing schedules run in the shared lane's worker alone. A file
 *   may say so when its tests keep to workspaces, processes and servers of their own, need no
 *   webhook delivery, meter tick or Stripe relay, pause nothing the whole stack shares, and look
 *   at PostgreSQL's sessions only through OUR_SESSIONS.
 * - **shared**: every other file of `test/integration/`, `test/browser/` and `test/e2e/`, one
 *   after another, beside the isolated lane on the same stack. A new file lands here until it
 *   says otherwise, which is always safe.
 */
export type LaneName = 'unit' | 'isolated' | 'shared';

export const UNIT_FOLDER = 'test/unit/';
/** The folders whose tests run against the real stack. */
export const STACK_FOLDERS = ['test/integration/', 'test/browser/', 'test/e2e/'];

const TAG = /^\/\/ lane: (\w+)/;

/** The lane of a test file (a path relative to the project, as `test/integration/x.test.ts`). */
export function laneOf(file: string, head: string = fs.readFileSync(file, 'utf8').slice(0, 200)): LaneName {
  if (file.startsWith(UNIT_FOLDER)) return 'unit';
  if (!STACK_FOLDERS.some((d) => file.startsWith(d)))
    throw new Error(`${file} is in no test folder: ${[UNIT_FOLDER, ...STACK_FOLDERS].join(', ')}`);
  const tag = TAG.exec(head)?.[1];
  if (tag === undefined) return 'shared';
  if (tag !== 'isolated')
    throw new Error(`${file} asks for lane ${JSON.stringify(tag)}: the only tag is "// lane: isolated"`);
  return 'isolated';
}

export const SHARED_LANE: Lane = { name: 'shared', taskQueue: 'compute-jobs', background: true };
export const ISOLATED_LANE: Lane = { name: 'isolated', taskQueue: 'compute-jobs-isolated', background: false };
