/**
 * The Node flags each service runs with. `npm run api` and `npm run worker`, compose, the soak's
 * production-shaped stack and the benches all pass these (test/unit/node-flags.test.ts holds the
 * first two to them).
 *
 * - `--max-semi-space-size=64`: a 64 MiB young generation. A 16 MiB one spends 15.6% of the wall
 *   time in GC under load and serves 5% fewer requests (docs/performance.md).
 * - Not `--single-threaded-gc`: it cost the API 13% more CPU per job under full load
 *   (docs/performance.md).
 * - Not `--no-parallel-scavenge`: it moves scavenges from V8's helper threads onto the main
 *   thread, whose pauses grow, and saved no CPU per job under full load.
 */
export const NODE_FLAGS = {
  api: ['--max-semi-space-size=64'],
  worker: ['--max-semi-space-size=64'],
} as const satisfies Record<string, readonly string[]>;
