import { useState } from 'preact/hooks';
import { call } from '../api';
import { ConfirmButton } from '../components/confirm-button';
import { Pager } from '../components/pager';
import { ProblemBox } from '../components/problem-box';
import { SecretOnce } from '../components/secret-once';
import { when } from '../format';
import { Link, within } from '../router';
import { WEBHOOK_EVENTS, type Webhook } from '../types';
import { useAction } from '../use-action';
import { usePaged, v0Page } from '../use-paged';
import { atLeast, useActing } from '../workspace';
import { DataTable } from '../components/data-table';

export { WebhookPage } from './webhook';

const PAGE_SIZE = 50;

/** The workspace's webhook endpoints: create (admin; the secret shown once), rotate, delete; each links its deliveries. */
export function WebhooksPage() {
  const { workspace } = useActing();
  const admin = atLeast(workspace.role, 'admin');
  const [form, setForm] = useState({ url: '', description: '', events: [...WEBHOOK_EVENTS] as string[] });
  const [secret, setSecret] = useState<{ label: string; secret: string }>();
  const action = useAction();
  const list = usePaged<Webhook>((cursor, signal) => v0Page('/v0/webhooks', PAGE_SIZE, cursor, signal), [workspace.id]);

  const toggle = (event: string, on: boolean) =>
    setForm({ ...form, events: on ? [...form.events, event] : form.events.filter((e) => e !== event) });
  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const made = await call<Webhook & { secret: string }>('POST', '/v0/webhooks', {
        body: {
          url: form.url.trim(),
          events: form.events,
          ...(form.description.trim() ? { description: form.description.trim() } : {}),
        },
      });
      setSecret({ label: `Signing secret of ${made.url}`, secret: made.secret });
      setForm({ ...form, url: '', description: '' });
      list.restart();
    });
  };
  const rotate = (w: Webhook) =>
    void action.run(async () => {
      const rotated = await call<{ secret: string; previousSecretExpiresAt: string }>(
        'POST',
        `/v0/webhooks/${encodeURIComponent(w.id)}:rotate-secret`,
      );
      setSecret({
        label: `New signing secret of ${w.url} (the previous one also signs until ${when(rotated.previousSecretExpiresAt)})`,
        secret: rotated.secret,
      });
      list.reload();
    });
  const remove = (w: Webhook) =>
    void action.run(() => call('DELETE', `/v0/webhooks/${encodeURIComponent(w.id)}`)).then(list.reload);

  return (
    <section>
      <h1>Webhooks</h1>
      <p class="note">
        Each job event is sent to these addresses, signed (Standard Webhooks) with the endpoint&apos;s secret.
      </p>
      {admin && (
        <form class="inline" onSubmit={create} aria-label="New webhook">
          <label>
            <span>Endpoint URL</span>
            <input
              type="url"
              required
              placeholder="https://example.com/hooks/compute"
              value={form.url}
              onInput={(e) => setForm({ ...form, url: e.currentTarget.value })}
            />
          </label>
          <label>
            <span>Description</span>
            <input
              maxLength={500}
              value={form.description}
              onInput={(e) => setForm({ ...form, description: e.currentTarget.value })}
            />
          </label>
          <fieldset class="cells">
            <legend>Events</legend>
            {WEBHOOK_EVENTS.map((event) => (
              <label key={event} class="check">
                <input
                  type="checkbox"
                  checked={form.events.includes(event)}
                  onChange={(e) => toggle(event, e.currentTarget.checked)}
                />{' '}
                {event}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={action.busy || form.events.length === 0}>
            Create webhook
          </button>
        </form>
      )}
      {secret && <SecretOnce label={secret.label} secret={secret.secret} onDone={() => setSecret(undefined)} />}
      <ProblemBox problem={list.problem ?? action.problem} />
      {list.page && list.page.items.length === 0 && <p>No webhooks yet.</p>}
      {list.page && list.page.items.length > 0 && (
        <DataTable
          label="Webhooks list"
          columns={[
            'Endpoint',
            { name: 'Events', wide: true },
            'Enabled',
            { name: 'Created', wide: true },
            admin && 'Actions',
          ]}
        >
          {list.page.items.map((w) => (
            <tr key={w.id}>
              <td>
                <Link href={within(`/webhooks/${w.id}`)}>{w.url}</Link>
                {w.description && <div class="note">{w.description}</div>}
              </td>
              <td class="wide">{w.events.join(', ')}</td>
              <td>{w.enabled ? 'yes' : `no${w.disabledReason ? ` (${w.disabledReason})` : ''}`}</td>
              <td class="wide">{when(w.createdAt)}</td>
              {admin && (
                <td>
                  <div class="cells">
                    <button
                      type="button"
                      class="secondary"
                      title={`Rotate the secret of ${w.url}`}
                      disabled={action.busy}
                      onClick={() => rotate(w)}
                    >
                      Rotate secret
                    </button>
                    <ConfirmButton
                      label="Delete"
                      what={`webhook ${w.url}`}
                      disabled={action.busy}
                      onConfirm={() => remove(w)}
                    />
                  </div>
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      <Pager list={list} what="Webhook" />
    </section>
  );
}
