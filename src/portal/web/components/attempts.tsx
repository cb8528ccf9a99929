import { useState } from 'preact/hooks';
import { call } from '../api';
import { duration, when } from '../format';
import { usePolling } from '../poll';
import type { Attempt } from '../types';
import { DataTable } from './data-table';

/** How an attempt ended, in the words a person scans for: kept at phone width, unlike the times. */
function outcome(a: Attempt): string {
  if (!a.endedAt) return 'running';
  const reason = a.endReason ?? 'ended';
  return a.exitCode === null ? reason : `${reason}, exit ${a.exitCode}`;
}

/** Each hand-out of the job to an agent, oldest first: who ran it, when, and how it ended. */
export function Attempts({ jobId, version }: { jobId: string; version: string }) {
  const [attempts, setAttempts] = useState<Attempt[]>();
  usePolling(
    async (signal) =>
      setAttempts(
        (await call<{ items: Attempt[] }>('GET', `/v0/jobs/${encodeURIComponent(jobId)}/attempts`, { signal })).items,
      ),
    0,
    false,
    [jobId, version],
  );
  if (!attempts) return null;
  return (
    <section aria-labelledby="attempts-heading">
      <h2 id="attempts-heading">Attempts</h2>
      {attempts.length === 0 ? (
        <p class="note">No agent has taken the job yet.</p>
      ) : (
        <DataTable
          label="Attempts list"
          columns={[
            'Attempt',
            'Agent',
            'Outcome',
            { name: 'Started', wide: true },
            { name: 'Ended', wide: true },
            { name: 'Ran', wide: true },
          ]}
        >
          {attempts.map((a) => (
            <tr key={a.attempt}>
              <td>{a.attempt}</td>
              <td>{a.agentId}</td>
              <td class="outcome">{outcome(a)}</td>
              <td class="wide">{when(a.assignedAt)}</td>
              <td class="wide">{a.endedAt ? when(a.endedAt) : '–'}</td>
              <td class="wide">{duration(a.runtimeMs)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
