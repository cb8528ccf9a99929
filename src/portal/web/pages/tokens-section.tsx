import { useState } from 'preact/hooks';
import { call } from '../api';
import { ConfirmButton } from '../components/confirm-button';
import { Pager } from '../components/pager';
import { ProblemBox } from '../components/problem-box';
import { SecretOnce } from '../components/secret-once';
import { when } from '../format';
import type { AccessToken, Role } from '../types';
import { useAction } from '../use-action';
import { usePaged, v0Page } from '../use-paged';
import { ROLES, atLeast, useActing } from '../workspace';
import { DataTable } from '../components/data-table';

const PAGE_SIZE = 50;

/** The workspace's personal access tokens (`cpat_…`, Surface B): admins issue and revoke them. */
export function TokensSection() {
  const { workspace } = useActing();
  const admin = atLeast(workspace.role, 'admin');
  const [form, setForm] = useState({ name: '', role: 'member' as Role, days: '90' });
  const [made, setMade] = useState<{ name: string; token: string }>();
  const action = useAction();
  const list = usePaged<AccessToken>(
    (cursor, signal) => v0Page('/v0/tokens', PAGE_SIZE, cursor, signal),
    [workspace.id],
  );
  const page = list.page;

  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const days = form.days.trim();
      const made = await call<AccessToken & { token: string }>('POST', '/v0/tokens', {
        body: { name: form.name.trim(), role: form.role, ...(days ? { expiresInDays: Number(days) } : {}) },
      });
      setMade({ name: made.name, token: made.token });
      setForm({ ...form, name: '' });
      list.restart();
    });
  };
  const revoke = (t: AccessToken) =>
    void action.run(() => call('DELETE', `/v0/tokens/${encodeURIComponent(t.id)}`)).then(list.reload);

  return (
    <>
      <h2>Access tokens</h2>
      <p class="note">
        A token (<code>Authorization: Bearer cpat_…</code>) acts for the person who issued it, in this workspace only,
        with its role capped by theirs.
      </p>
      {admin && (
        <form class="inline" onSubmit={create} aria-label="New access token">
          <label>
            <span>Token name</span>
            <input
              required
              maxLength={100}
              value={form.name}
              onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
            />
          </label>
          <label>
            <span>Role</span>
            <select value={form.role} onChange={(e) => setForm({ ...form, role: e.currentTarget.value as Role })}>
              {ROLES.filter((r) => atLeast(workspace.role, r)).map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>Expires in days</span>
            <input
              type="number"
              min={1}
              max={3650}
              value={form.days}
              onInput={(e) => setForm({ ...form, days: e.currentTarget.value })}
            />
          </label>
          <button type="submit" disabled={action.busy}>
            Create token
          </button>
        </form>
      )}
      {made && <SecretOnce label={`Token ${made.name}`} secret={made.token} onDone={() => setMade(undefined)} />}
      <ProblemBox problem={list.problem ?? action.problem} />
      {page && page.items.length === 0 && <p>No access tokens in this workspace.</p>}
      {page && page.items.length > 0 && (
        <DataTable
          label="Access tokens list"
          columns={[
            'Name',
            'Role',
            { name: 'Created', wide: true },
            { name: 'Expires', wide: true },
            { name: 'Last used', wide: true },
            admin && 'Revoke',
          ]}
        >
          {page.items.map((t) => (
            <tr key={t.id}>
              <td>{t.name}</td>
              <td>{t.role}</td>
              <td class="wide">{when(t.createdAt)}</td>
              <td class="wide">{t.expiresAt ? when(t.expiresAt) : 'never'}</td>
              <td class="wide">{when(t.lastUsedAt)}</td>
              {admin && (
                <td>
                  {t.revokedAt ? (
                    <span class="note">Revoked {when(t.revokedAt)}</span>
                  ) : (
                    <ConfirmButton
                      label="Revoke"
                      what={`token ${t.name}`}
                      disabled={action.busy}
                      onConfirm={() => revoke(t)}
                    />
                  )}
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      <Pager list={list} what="Token" />
    </>
  );
}
