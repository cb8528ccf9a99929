import fs from 'node:fs';
import type { Lane, TemporalKind } from './support/env';

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
 *
 * - **alone**: files that say `// lane: alone` on their first line load the machine so much (the
 *   fault soak runs a whole production-shaped stack of its own; the batch Terminate, a thousand
 *   runs) that timing tests beside them would fail, or hold a bound that is a time on a machine
 *   with nothing else to do: they run after every other lane has finished, one after another.
 *
 * Those lanes run on Temporal's dev server. A file that says `// temporal: dev, server` in its
 * first lines also runs in a fourth lane, **server**, on the Temporal server users deploy
 * (PostgreSQL persistence, 4 shards, src/stack/temporal-cluster.ts) with an app database of its
 * own; `// temporal: server` runs it there alone. The files that prove what only a real cluster
 * shows say so: processes killed, several instances, the Temporal UI's actions, webhook delivery.
 */
export type LaneName = 'unit' | 'isolated' | 'shared' | 'alone';

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
  if (tag !== 'isolated' && tag !== 'alone')
    throw new Error(
      `${file} asks for lane ${JSON.stringify(tag)}: the tags are "// lane: isolated" and "// lane: alone"`,
    );
  return tag;
}

const TEMPORAL_TAG = /^\/\/ temporal: ([\w, ]+)/m;

/** The Temporal servers a stack test file runs on: the dev server unless its tag says otherwise. */
export function temporalsOf(file: string, head: string = fs.readFileSync(file, 'utf8').slice(0, 300)): TemporalKind[] {
  const tag = TEMPORAL_TAG.exec(head)?.[1];
  if (tag === undefined) return ['dev'];
  const kinds = tag.split(',').map((k) => k.trim());
  if (!kinds.length || kinds.some((k) => k !== 'dev' && k !== 'server'))
    throw new Error(
      `${file} says "// temporal: ${tag}": the servers are dev and server, e.g. "// temporal: dev, server"`,
    );
  return kinds as TemporalKind[];
}

export const ALONE_LANE: Lane = { name: 'alone', taskQueue: 'compute-jobs-alone', background: false };
export const SERVER_LANE: Lane = { name: 'server', taskQueue: 'compute-jobs', background: true };
export const SHARED_LANE: Lane = { name: 'shared', taskQueue: 'compute-jobs', background: true };
export const ISOLATED_LANE: Lane = { name: 'isolated', taskQueue: 'compute-jobs-isolated', background: false };
