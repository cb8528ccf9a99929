import { call } from '../api';
import { ConfirmButton } from '../components/confirm-button';
import { Pager } from '../components/pager';
import { ProblemBox } from '../components/problem-box';
import { labelsText, when } from '../format';
import { Link, within } from '../router';
import type { Agent } from '../types';
import { useAction } from '../use-action';
import { usePaged, v0Page } from '../use-paged';
import { atLeast, useActing } from '../workspace';
import { DataTable } from '../components/data-table';

const PAGE_SIZE = 50;
/** Agents change state by themselves (heartbeats, loss): the list is read again this often. */
const AGENTS_REFRESH_MS = 5000;

/** The workspace's agents: state, labels, last heartbeat, current jobs; drain and remove for admins. */
export function AgentsPage() {
  const { workspace } = useActing();
  const admin = atLeast(workspace.role, 'admin');
  const list = usePaged<Agent>(
    (cursor, signal) => v0Page('/v0/agents', PAGE_SIZE, cursor, signal),
    [workspace.id],
    AGENTS_REFRESH_MS,
  );
  const action = useAction();
  const page = list.page;
  const act = (work: () => Promise<unknown>) => void action.run(work).then(list.reload);
  const drain = (a: Agent) => act(() => call('POST', `/v0/agents/${encodeURIComponent(a.id)}:drain`, { body: {} }));
  const remove = (a: Agent) => act(() => call('DELETE', `/v0/agents/${encodeURIComponent(a.id)}`));

  return (
    <section>
      <h1>Agents</h1>
      <p class="note">
        The machines that run this workspace&apos;s jobs. Refreshed every {AGENTS_REFRESH_MS / 1000} s.
        {admin ? ' Drain stops new jobs reaching an agent; Remove also stops its key and requeues its jobs.' : ''}
      </p>
      <ProblemBox problem={list.problem ?? action.problem} />
      {page && page.items.length === 0 && <p>No agents yet. Start one with an agent key: see Keys.</p>}
      {page && page.items.length > 0 && (
        <DataTable
          label="Agents list"
          columns={[
            'Agent',
            'State',
            { name: 'Labels', wide: true },
            { name: 'Last heartbeat', wide: true },
            'Current jobs',
            admin && 'Actions',
          ]}
        >
          {page.items.map((a) => (
            <tr key={a.id} data-agent={a.id}>
              <td>
                {a.name}
                <div class="note">{a.id}</div>
              </td>
              <td>
                <span class={`state agent-${a.state.toLowerCase()}`}>{a.state}</span>
              </td>
              <td class="wide">{labelsText(a.labels) || '–'}</td>
              <td class="wide">{when(a.lastHeartbeatAt)}</td>
              <td>
                {a.currentJobs.length === 0
                  ? '–'
                  : a.currentJobs.map((j) => (
                      <div key={j}>
                        <Link href={within(`/jobs/${j}`)}>{j}</Link>
                      </div>
                    ))}
              </td>
              {admin && (
                <td>
                  <div class="cells">
                    <button
                      type="button"
                      class="secondary"
                      title={`Drain ${a.name}`}
                      disabled={action.busy || a.state !== 'ONLINE'}
                      onClick={() => drain(a)}
                    >
                      Drain
                    </button>
                    <ConfirmButton
                      label="Remove"
                      what={`agent ${a.name}`}
                      disabled={action.busy}
                      onConfirm={() => remove(a)}
                    />
                  </div>
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      <Pager list={list} what="Agent" />
    </section>
  );
}
