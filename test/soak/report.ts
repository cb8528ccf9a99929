import type { FaultLog } from './faults';
import type { JobRecord } from './drain';
import { ALL_KINDS, type Kind, type Submitted } from './workload';
import type { Finding } from './checks/finding';
import type { Received } from '../support/webhook-receiver';

// What the soak prints: faults by kind, jobs by kind and end state, a few latencies, the broken
// invariants with their evidence, and the one-line summary last.

export const COUNT_NAMES = [
  'lost',
  'doubled',
  'overlapping_leases',
  'log_gaps',
  'ledger_mismatches',
  'webhook_missing',
  'artifact_mismatches',
  'http_500',
] as const;
export type Counts = Record<(typeof COUNT_NAMES)[number], number>;

export interface KindFigures {
  submitted: number;
  acknowledged: number;
  ended: number;
  states: Record<string, number>;
}

/**
 * How each kind may end: by design, or after its agent was lost three times. Anything else (a job
 * killed though nobody asked, an exit code where none was due) is reported as unexpected.
 */
const EXPECTED: Record<Kind, RegExp> = {
  short: /^SUCCEEDED$|^FAILED\(agent_lost\)$/,
  long: /^SUCCEEDED$|^FAILED\(agent_lost\)$/,
  artifact: /^SUCCEEDED$|^FAILED\(agent_lost\)$/,
  managed: /^SUCCEEDED$|^FAILED\(agent_lost\)$|\(billing\.hard_cap\)$/,
  failing: /^FAILED\((exit_code|agent_lost)\)$/,
  timeout: /^TIMED_OUT\(timeout\)$|^FAILED\(agent_lost\)$/,
  cancel: /^CANCELLED|^FAILED\(agent_lost\)$/,
};

/** The acknowledged jobs that ended in a way their kind never should. */
export function unexpectedEndings(kinds: Record<Kind, KindFigures>): string[] {
  return ALL_KINDS.flatMap((k) =>
    Object.entries(kinds[k].states)
      .filter(([state]) => !EXPECTED[k].test(state))
      .map(([state, n]) => `${k} ended ${state} x${n}`),
  );
}

export interface SoakReport {
  minutes: number;
  /** Whether a managed-pool agent ran (root and bubblewrap), and so managed jobs. */
  managedAgent: boolean;
  faults: FaultLog;
  jobs: number;
  kinds: Record<Kind, KindFigures>;
  counts: Counts;
  /** Endings no kind should have (see EXPECTED); not among the counts, yet a failure. */
  unexpected: string[];
  findings: Record<string, Finding[]>;
  lines: string[];
}

export function kindFigures(jobs: Submitted[], records: Map<string, JobRecord>): Record<Kind, KindFigures> {
  const out = Object.fromEntries(
    ALL_KINDS.map((k) => [k, { submitted: 0, acknowledged: 0, ended: 0, states: {} }]),
  ) as Record<Kind, KindFigures>;
  for (const job of jobs) {
    const f = out[job.kind];
    f.submitted++;
    if (!job.id) continue;
    f.acknowledged++;
    const state = records.get(job.id)?.state as string | undefined;
    if (state && ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED'].includes(state)) f.ended++;
    const reason = records.get(job.id)?.failureReason as string | null | undefined;
    const key = `${state ?? 'unread'}${reason ? `(${reason})` : ''}`;
    f.states[key] = (f.states[key] ?? 0) + 1;
  }
  return out;
}

export function percentiles(values: number[]): string {
  if (!values.length) return 'none';
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  return `p50=${at(50)}ms p95=${at(95)}ms max=${sorted[sorted.length - 1]}ms (n=${sorted.length})`;
}

/** From submit to the API showing it terminal is not observed exactly; the webhook's arrival is. */
export function latencyLines(jobs: Submitted[], records: Map<string, JobRecord>, received: Received[]): string[] {
  const firstTerminal = new Map<string, number>();
  for (const r of received)
    if (r.event?.type === 'job.terminal' && !firstTerminal.has(r.event.data.job.id))
      firstTerminal.set(r.event.data.job.id, r.at);
  const endToEnd: number[] = [];
  const webhookDelay: number[] = [];
  for (const job of jobs) {
    const at = job.id && firstTerminal.get(job.id);
    if (!at) continue;
    if (job.kind === 'short') endToEnd.push(at - job.at);
    const finished = records.get(job.id!)?.finishedAt;
    if (finished) webhookDelay.push(Math.max(0, at - Date.parse(finished)));
  }
  return [
    `latency submit acknowledged: ${percentiles(jobs.flatMap((j) => (j.ackMs === undefined ? [] : [j.ackMs])))}`,
    `latency short job submit to job.terminal received: ${percentiles(endToEnd)}`,
    `latency finishedAt to job.terminal received: ${percentiles(webhookDelay)}`,
  ];
}

export function summaryLine(minutes: number, faults: number, jobs: number, counts: Counts): string {
  return `soak minutes=${minutes} faults=${faults} jobs=${jobs} ${COUNT_NAMES.map((n) => `${n}=${counts[n]}`).join(' ')}`;
}
