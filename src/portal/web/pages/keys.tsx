import { useState } from 'preact/hooks';
import { call } from '../api';
import { ConfirmButton } from '../components/confirm-button';
import { Pager } from '../components/pager';
import { ProblemBox } from '../components/problem-box';
import { SecretOnce } from '../components/secret-once';
import { when } from '../format';
import type { ApiKey } from '../types';
import { useAction } from '../use-action';
import { usePaged } from '../use-paged';
import { useActing } from '../workspace';
import { TokensSection } from './tokens-section';
import { DataTable } from '../components/data-table';

const PAGE_SIZE = 50;

/** Keys and tokens: the person's API keys (Surface A), and the workspace's access tokens (Surface B). */
export function KeysPage() {
  return (
    <section>
      <h1>Keys and tokens</h1>
      <ApiKeysSection />
      <TokensSection />
    </section>
  );
}

/** Your API keys: `user` keys call the API as you, `agent` keys register agents. */
function ApiKeysSection() {
  const { workspace } = useActing();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'user' | 'agent'>('agent');
  const [made, setMade] = useState<{ name: string; key: string }>();
  const action = useAction();
  const list = usePaged<ApiKey>(
    async (cursor, signal) => {
      const page = await call<{ keys: ApiKey[]; nextCursor: string | null }>('POST', '/api/compute/api-keys/list', {
        body: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) },
        signal,
      });
      return { items: page.keys, next: page.nextCursor };
    },
    [workspace.id],
  );
  const page = list.page;

  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const key = await call<ApiKey & { key: string }>('POST', '/api/compute/api-keys/create', {
        body: { name: name.trim(), kind },
      });
      setMade({ name: key.name, key: key.key });
      setName('');
      list.restart();
    });
  };
  const revoke = (k: ApiKey) =>
    void action.run(() => call('POST', '/api/compute/api-keys/revoke', { body: { id: k.id } })).then(list.reload);

  return (
    <>
      <h2>API keys</h2>
      <p class="note">
        A user key calls the API as you (header <code>X-API-Key</code>); an agent key registers agents (
        <code>compute agent --key</code>).
      </p>
      <form class="inline" onSubmit={create} aria-label="New API key">
        <label>
          <span>Key name</span>
          <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          <span>Kind</span>
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as 'user' | 'agent')}>
            <option value="agent">agent</option>
            <option value="user">user</option>
          </select>
        </label>
        <button type="submit" disabled={action.busy}>
          Create key
        </button>
      </form>
      {made && <SecretOnce label={`Key ${made.name}`} secret={made.key} onDone={() => setMade(undefined)} />}
      <ProblemBox problem={list.problem ?? action.problem} />
      {page && page.items.length === 0 && <p>No keys yet.</p>}
      {page && page.items.length > 0 && (
        <DataTable
          label="API keys list"
          columns={[
            'Name',
            'Prefix',
            { name: 'Kind', wide: true },
            { name: 'Created', wide: true },
            { name: 'Last used', wide: true },
            'Revoke',
          ]}
        >
          {page.items.map((k) => (
            <tr key={k.id} data-key={k.prefix}>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}</code>
              </td>
              <td class="wide">{k.kind}</td>
              <td class="wide">{when(k.createdAt)}</td>
              <td class="wide">{when(k.lastUsedAt)}</td>
              <td>
                {k.revokedAt ? (
                  <span class="note">Revoked {when(k.revokedAt)}</span>
                ) : (
                  <ConfirmButton
                    label="Revoke"
                    what={`key ${k.name}`}
                    disabled={action.busy}
                    onConfirm={() => revoke(k)}
                  />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager list={list} what="Key" />
    </>
  );
}
