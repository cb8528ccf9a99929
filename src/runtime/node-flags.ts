/**
 * The Node flags each service runs with. `npm run api` and `npm run worker`, compose, the soak's
 * production-shaped stack and the benches all pass these (test/unit/node-flags.test.ts holds the
 * first two to them).
 *
 * - `--max-semi-space-size=64`: a 64 MiB young generation. A 16 MiB one spends 15.6% of the wall
 *   time in GC under load and serves 5% fewer requests (docs/performance.md).
 * - `--single-threaded-gc`, the API only: an API holds thousands of agents' idle connections, and
 *   its collections with them cost less CPU on its own thread than spread over helper threads
 *   (an idle fleet of 10 000: about a quarter of a core against a third), at some CPU per job under
 *   full load (docs/performance.md). A worker is busy, not connection-bound: it keeps them.
 */
export const NODE_FLAGS = {
  api: ['--max-semi-space-size=64', '--single-threaded-gc'],
  worker: ['--max-semi-space-size=64'],
} as const satisfies Record<string, readonly string[]>;

export type ServiceRole = keyof typeof NODE_FLAGS;
