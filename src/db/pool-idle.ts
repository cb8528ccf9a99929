/**
 * How long an idle pooled connection is kept. A new backend plans each statement several times as
 * it loads its catalog (milliseconds of PostgreSQL's CPU each), so a pool that let go after tarn's
 * default 30 s would pay that again with every burst after a short lull.
 */
export const POOL_IDLE_MS = 5 * 60_000;
