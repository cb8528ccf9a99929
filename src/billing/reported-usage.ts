import type { ReportedUsage } from '../../workflows/job-model';

const FIGURES = ['cpuSeconds', 'gpuSeconds', 'gbSeconds', 'peakMemoryMb'] as const;

/**
 * The figures of an agent's `usage` we keep (others are ignored); undefined when none is given.
 * The ledger prices the first three; `peakMemoryMb` is kept with the attempt for the record.
 */
export function reportedUsage(usage: Record<string, number> | undefined): ReportedUsage | undefined {
  if (!usage) return undefined;
  const known = Object.fromEntries(
    FIGURES.filter((f) => typeof usage[f] === 'number' && Number.isFinite(usage[f]) && usage[f] >= 0).map((f) => [
      f,
      usage[f],
    ]),
  );
  return Object.keys(known).length ? known : undefined;
}
