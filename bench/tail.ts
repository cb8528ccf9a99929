import { type Sample, scrape, total } from '../test/support/metrics';

// Where a server's tail goes during a phase: the event loop's delay (a request that arrives while
// the loop is busy waits that long before any of our code runs), garbage-collection pauses, and
// the waits for a database connection. Our API reports them on /metrics (prom-client's
// monitorEventLoopDelay figures since the last scrape, its GC histogram, our pool-wait histogram);
// the bare server on GET /stats, from the same Node APIs.

export interface TailFigures {
  /** Event-loop delay over the phase, ms. */
  loop: { p50: number; p99: number; max: number };
  /** GC pauses over the phase: total ms, count, how many took 10 ms or more, and the share of wall time. */
  gc: { ms: number; count: number; over10ms: number; share: number };
  /** Waits for a pooled connection (ours only): mean ms, and the bucket bound holding the p99. */
  pool?: { mean: number; p99: number; count: number };
}

/** The smallest bucket bound at or above which `q` of the observations fall (a histogram's quantile, bucket-coarse). */
function bucketQuantile(
  before: Sample[],
  after: Sample[],
  name: string,
  q: number,
  labels: Record<string, string> = {},
): number {
  const bounds = [...new Set(after.filter((s) => s.name === `${name}_bucket`).map((s) => s.labels.le))];
  const counts = bounds
    .map((le) => ({
      le: le === '+Inf' ? Infinity : Number(le),
      n: total(after, `${name}_bucket`, { ...labels, le }) - total(before, `${name}_bucket`, { ...labels, le }),
    }))
    .sort((a, b) => a.le - b.le);
  const all = counts.at(-1)?.n ?? 0;
  return (counts.find((c) => c.n >= q * all)?.le ?? NaN) * 1000;
}

/** Runs `phase` against our API at `url`, scraping /metrics on either side. */
export async function oursTail<T>(url: string, phase: () => Promise<T>): Promise<{ result: T; tail: TailFigures }> {
  const before = await scrape(url); // also starts the loop-delay window afresh
  const started = Date.now();
  const result = await phase();
  const wallMs = Date.now() - started;
  const after = await scrape(url);
  const delta = (name: string, labels: Record<string, string> = {}) =>
    total(after, name, labels) - total(before, name, labels);
  const gcMs = delta('compute_nodejs_gc_duration_seconds_sum') * 1000;
  const gcCount = delta('compute_nodejs_gc_duration_seconds_count');
  const under10 = delta('compute_nodejs_gc_duration_seconds_bucket', { le: '0.01' });
  const poolCount = delta('compute_db_pool_wait_seconds_count');
  return {
    result,
    tail: {
      loop: {
        p50: total(after, 'compute_nodejs_eventloop_lag_p50_seconds') * 1000,
        p99: total(after, 'compute_nodejs_eventloop_lag_p99_seconds') * 1000,
        max: total(after, 'compute_nodejs_eventloop_lag_max_seconds') * 1000,
      },
      gc: { ms: gcMs, count: gcCount, over10ms: gcCount - under10, share: gcMs / wallMs },
      pool: {
        mean: poolCount ? (delta('compute_db_pool_wait_seconds_sum') * 1000) / poolCount : 0,
        p99: bucketQuantile(before, after, 'compute_db_pool_wait_seconds', 0.99),
        count: poolCount,
      },
    },
  };
}

/** As `oursTail`, for the bare server's GET /stats (which starts a new window when read). */
export async function bareTail<T>(url: string, phase: () => Promise<T>): Promise<{ result: T; tail: TailFigures }> {
  await fetch(`${url}/stats`);
  const started = Date.now();
  const result = await phase();
  const wallMs = Date.now() - started;
  const s = (await (await fetch(`${url}/stats`)).json()) as {
    loop: TailFigures['loop'];
    gc: { ms: number; count: number; over10ms: number };
  };
  return { result, tail: { loop: s.loop, gc: { ...s.gc, share: s.gc.ms / wallMs } } };
}

const f1 = (v: number) => v.toFixed(1);

/** One line per side: the worst round's loop delay, GC and pool figures summed or maxed over the rounds. */
export function describeTail(name: string, tails: TailFigures[]): string {
  const max = (f: (t: TailFigures) => number) => Math.max(...tails.map(f));
  const sum = (f: (t: TailFigures) => number) => tails.reduce((s, t) => s + f(t), 0);
  const pool = tails.every((t) => t.pool)
    ? `; pool waits ${sum((t) => t.pool!.count)}: mean ${(
        sum((t) => t.pool!.mean * t.pool!.count) /
        Math.max(
          1,
          sum((t) => t.pool!.count),
        )
      ).toFixed(3)} ms, p99 ≤ ${f1(max((t) => t.pool!.p99))} ms`
    : '';
  return (
    `${name.padEnd(5)} event-loop delay p50 ${f1(max((t) => t.loop.p50))} p99 ${f1(max((t) => t.loop.p99))} max ${f1(max((t) => t.loop.max))} ms (worst round); ` +
    `GC ${f1(sum((t) => t.gc.ms))} ms in ${sum((t) => t.gc.count)} pauses (${sum((t) => t.gc.over10ms)} of 10 ms or more), ${(max((t) => t.gc.share) * 100).toFixed(1)}% of the wall time at most${pool}`
  );
}
