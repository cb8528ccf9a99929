// What the API tells the page about its deployment, in <meta> tags it adds to the page (the
// content security policy allows no inline script to carry them).

const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';

/** The run of job `jobId` in the Temporal UI (its Workflow ID is the job's ID), or none when no UI address is set. */
export function temporalRunUrl(jobId: string): string | undefined {
  const base = meta('compute-temporal-ui');
  if (!base) return undefined;
  return `${base}/namespaces/${encodeURIComponent(meta('compute-temporal-namespace') || 'default')}/workflows/${encodeURIComponent(jobId)}`;
}
