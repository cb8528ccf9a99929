// How the portal writes times and durations.

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '–');

export function duration(ms: number | null): string {
  if (ms === null) return '–';
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

export const labelsText = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');

/** `12 s ago`, `5 min ago`, `3 h ago`, `2 d ago`: when a list is scanned, not read. */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** How long a job ran: its runtime once over, the time since it started while it runs. */
export function ran(job: { startedAt: string | null; runtimeMs: number | null }, now = Date.now()): string {
  if (job.runtimeMs !== null) return duration(job.runtimeMs);
  return job.startedAt ? `${duration(now - Date.parse(job.startedAt))} so far` : '–';
}
