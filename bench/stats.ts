import { performance } from 'node:perf_hooks';

/** Milliseconds since the epoch with sub-millisecond resolution, comparable with server timestamps. */
export const nowMs = (): number => performance.timeOrigin + performance.now();

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentiles. */
export function summarize(samples: number[]): Summary {
  if (samples.length === 0) return { n: 0, p50: NaN, p90: NaN, p99: NaN, mean: NaN, min: NaN, max: NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
  return {
    n: sorted.length,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    mean,
    min: sorted[0],
    max: sorted[sorted.length - 1],
  };
}

export const ms = (v: number) => v.toFixed(1);

export function describe(label: string, s: Summary): string {
  return `${label.padEnd(44)} n=${String(s.n).padStart(4)}  p50 ${ms(s.p50).padStart(6)}  p90 ${ms(s.p90).padStart(6)}  p99 ${ms(s.p99).padStart(6)}  mean ${ms(s.mean).padStart(6)}  max ${ms(s.max).padStart(7)} ms`;
}

/** Runs `task` for indices 0..total-1 with at most `inFlight` running at once; resolves with elapsed ms. */
export async function runPool(total: number, inFlight: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = nowMs();
  const lane = async () => {
    while (next < total) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, lane));
  return nowMs() - started;
}

/** Jobs per second over the middle 80% of completions: the run without its ramp-up and drain. */
export function steadyRate(doneAt: number[]): number {
  const sorted = [...doneAt].sort((a, b) => a - b);
  const lo = Math.floor(sorted.length * 0.1);
  const hi = Math.ceil(sorted.length * 0.9) - 1;
  return hi > lo ? ((hi - lo) / (sorted[hi] - sorted[lo])) * 1000 : NaN;
}
