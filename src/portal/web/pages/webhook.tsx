import { useState } from 'preact/hooks';
import { call } from '../api';
import { Pager } from '../components/pager';
import { ProblemBox } from '../components/problem-box';
import { when } from '../format';
import { usePolling } from '../poll';
import { Link, within } from '../router';
import type { Delivery, Webhook } from '../types';
import { useAction } from '../use-action';
import { usePaged, v0Page } from '../use-paged';
import { atLeast, useActing } from '../workspace';
import { DataTable } from '../components/data-table';

const PAGE_SIZE = 50;
/** Deliveries are retried by themselves: the list is read again this often. */
const DELIVERIES_REFRESH_MS = 5000;
const STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** One endpoint and every attempt to deliver to it, with their status; an admin may redeliver one. */
export function WebhookPage({ webhookId }: { webhookId: string }) {
  const { workspace } = useActing();
  const path = `/v0/webhooks/${encodeURIComponent(webhookId)}`;
  const [hook, setHook] = useState<Webhook>();
  const [status, setStatus] = useState('');
  const [done, setDone] = useState('');
  const action = useAction();
  usePolling(async (signal) => setHook(await call<Webhook>('GET', path, { signal })), 0, false, [path]);
  const list = usePaged<Delivery>(
    (cursor, signal) => v0Page(`${path}/deliveries`, PAGE_SIZE, cursor, signal, status ? { status } : {}),
    [path, status],
    DELIVERIES_REFRESH_MS,
  );
  const redeliver = (d: Delivery) =>
    void action.run(async () => {
      setDone('');
      await call('POST', `${path}/deliveries/${encodeURIComponent(d.id)}:redeliver`);
      setDone(`Event ${d.eventId} is sent again; its new attempt appears below.`);
      list.reload();
    });

  return (
    <section>
      <p class="crumbs">
        <Link href={within('/webhooks')}>Webhooks</Link> / {webhookId}
      </p>
      <h1>Deliveries to {hook?.url ?? webhookId}</h1>
      <label class="filters">
        <span>Status</span>
        <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <p class="note" role="status">
        {done}
      </p>
      <ProblemBox problem={list.problem ?? action.problem} />
      {list.page && list.page.items.length === 0 && <p>No deliveries{status ? ` with status ${status}` : ''} yet.</p>}
      {list.page && list.page.items.length > 0 && (
        <DataTable
          label="Deliveries list"
          columns={[
            'Event',
            'Status',
            { name: 'Answer', wide: true },
            { name: 'Attempt', wide: true },
            { name: 'At', wide: true },
            atLeast(workspace.role, 'admin') && 'Redeliver',
          ]}
        >
          {list.page.items.map((d) => (
            <tr key={d.id} data-delivery={d.id}>
              <td>
                {d.eventType}
                <div class="note">
                  {d.eventId} · <Link href={within(`/jobs/${d.jobId}`)}>{d.jobId}</Link>
                </div>
              </td>
              <td>
                <span class={`state delivery-${d.status}`}>{d.status}</span>
                {d.nextAttemptAt && <div class="note">next try {when(d.nextAttemptAt)}</div>}
              </td>
              <td class="wide">
                {d.responseStatus ?? '–'} {d.error && <span class="note">{d.error}</span>}{' '}
                <span class="note">({d.durationMs} ms)</span>
              </td>
              <td class="wide">
                {d.attempt}
                {d.redelivery && ' (redelivery)'}
              </td>
              <td class="wide">{when(d.createdAt)}</td>
              {atLeast(workspace.role, 'admin') && (
                <td>
                  <button
                    type="button"
                    class="secondary"
                    title={`Redeliver ${d.eventId}`}
                    disabled={action.busy}
                    onClick={() => redeliver(d)}
                  >
                    Redeliver
                  </button>
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      <Pager list={list} what="Delivery" />
    </section>
  );
}
