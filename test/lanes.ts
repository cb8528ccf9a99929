import type { Lane } from './support/env';

/**
 * `npm test` runs the suite in two lanes at once, on one stack (scripts/test-suite.ts):
 * most of the suite waits on timers, kills and restarts, and one lane leaves a core idle.
 *
 * The isolated lane holds the files listed here and the unit tests. Its process runs an API and a
 * worker on a task queue of its own and none of the stack's singletons: the webhook and
 * meter-event relays and the billing schedules run in the shared lane's worker alone. A file
 * belongs here when its tests keep to workspaces, processes and servers of their own, need no
 * webhook delivery, meter tick or Stripe relay, pause nothing the whole stack shares, and look
 * at PostgreSQL's sessions only through OUR_SESSIONS. Every other file, and a new one until it
 * is listed, runs in the shared lane, one file after another as before.
 */
export const ISOLATED_FILES = [
  'agent-failures',
  'agent-log-batching',
  'agent-process-control',
  'agent',
  'api-keys',
  'artifact-limits',
  'artifact-replace-cap-hung-minio',
  'artifacts-agent',
  'artifacts',
  'attempt-isolation',
  'audit-changes',
  'audit-export-bounds',
  'audit-log',
  'auth-limits-and-rotation',
  'auth-login',
  'bad-input',
  'claim-pool',
  'cli-agents',
  'cli-artifacts',
  'cli-keys',
  'cli-login',
  'cli-run-logs-jobs',
  'cli-workspaces',
  'contract-fuzz',
  'count-bounds',
  'deployment',
  'dev-terminal',
  'docs-page',
  'early-answer-closes',
  'effective-role',
  'hostile-output',
  'job-lifecycle',
  'lock-order',
  'log-budget',
  'log-push-turns',
  'logs',
  'managed-resources',
  'managed-sandbox',
  'member-removal',
  'node-key-scope',
  'portal',
  'portal-session-cookie',
  'rate-limit',
  'request-cost',
  'stream-bounds',
  'timers',
  'v0-attempts',
  'v0-jobs',
  'v0-rate-limits',
].map((name) => `test/${name}.test.ts`);

/** Unit tests start no service of ours and share nothing: they run in the isolated lane. */
export const ISOLATED_FOLDERS = ['test/unit/'];

export const SHARED_LANE: Lane = { name: 'shared', taskQueue: 'compute-jobs', background: true };
export const ISOLATED_LANE: Lane = { name: 'isolated', taskQueue: 'compute-jobs-isolated', background: false };
