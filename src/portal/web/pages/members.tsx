import { useState } from 'preact/hooks';
import { call } from '../api';
import { ConfirmButton } from '../components/confirm-button';
import { Pager } from '../components/pager';
import { ProblemBox } from '../components/problem-box';
import { when } from '../format';
import type { Member, Role } from '../types';
import { useAction } from '../use-action';
import { usePaged, v0Page } from '../use-paged';
import { ROLES, atLeast, useActing } from '../workspace';
import { DataTable } from '../components/data-table';

const PAGE_SIZE = 100;

/**
 * The roles the caller may give, and whom they may change: an owner everyone; an admin only
 * members, and only the member role (to or from admin or owner needs an owner).
 */
const grantable = (caller: Role): Role[] => (caller === 'owner' ? [...ROLES] : caller === 'admin' ? ['member'] : []);
const aRole = (r: Role) => (r === 'member' ? 'a member' : `an ${r}`);
const manages = (caller: Role, target: Role) => caller === 'owner' || (caller === 'admin' && target === 'member');

/** The workspace's members: invite, change role and remove, as the caller's role allows. */
export function MembersPage() {
  const { workspace, userId } = useActing();
  const path = `/v0/workspaces/${encodeURIComponent(workspace.id)}/members`;
  const [invite, setInvite] = useState({ email: '', role: 'member' as Role });
  const [done, setDone] = useState('');
  const action = useAction();
  const roles = grantable(workspace.role);
  const list = usePaged<Member>((cursor, signal) => v0Page(path, PAGE_SIZE, cursor, signal), [path]);
  const page = list.page;
  const act = (work: () => Promise<string>) =>
    void action.run(async () => {
      setDone('');
      setDone(await work());
      list.reload();
    });
  const add = (e: Event) => {
    e.preventDefault();
    act(async () => {
      const m = await call<Member>('POST', path, { body: { email: invite.email.trim(), role: invite.role } });
      setInvite({ ...invite, email: '' });
      return `${m.email} is now ${aRole(m.role)}; they sign in with their e-mail.`;
    });
  };
  const change = (m: Member, role: Role) =>
    act(async () => {
      await call('PATCH', `${path}/${encodeURIComponent(m.userId)}`, { body: { role } });
      return `${m.email} is now ${aRole(role)}.`;
    });
  const remove = (m: Member) =>
    act(async () => {
      const gone = await call<{ revoked: { keys: string[]; tokens: string[]; agents: string[] } }>(
        'DELETE',
        `${path}/${encodeURIComponent(m.userId)}`,
      );
      const { keys, tokens, agents } = gone.revoked;
      return `${m.email} was removed: ${keys.length} keys, ${tokens.length} tokens and ${agents.length} agents of theirs were revoked.`;
    });

  return (
    <section>
      <h1>Members</h1>
      {roles.length > 0 && (
        <form class="inline" onSubmit={add} aria-label="Invite a member">
          <label>
            <span>Member e-mail</span>
            <input
              type="email"
              required
              value={invite.email}
              onInput={(e) => setInvite({ ...invite, email: e.currentTarget.value })}
            />
          </label>
          <label>
            <span>Role</span>
            <select value={invite.role} onChange={(e) => setInvite({ ...invite, role: e.currentTarget.value as Role })}>
              {roles.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={action.busy}>
            Invite
          </button>
        </form>
      )}
      <p class="note" role="status">
        {done}
      </p>
      <ProblemBox problem={list.problem ?? action.problem} />
      {page && (
        <DataTable
          label="Members list"
          columns={['E-mail', 'Role', { name: 'Added', wide: true }, atLeast(workspace.role, 'admin') && 'Remove']}
        >
          {page.items.map((m) => {
            const mine = manages(workspace.role, m.role);
            return (
              <tr key={m.userId}>
                <td>
                  {m.email}
                  {m.userId === userId && <span class="note"> (you)</span>}
                </td>
                <td>
                  {mine && roles.length > 1 ? (
                    <select
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      disabled={action.busy}
                      onChange={(e) => change(m, e.currentTarget.value as Role)}
                    >
                      {roles.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  ) : (
                    m.role
                  )}
                </td>
                <td class="wide">{when(m.addedAt)}</td>
                {atLeast(workspace.role, 'admin') && (
                  <td>
                    {mine && (
                      <ConfirmButton label="Remove" what={m.email} disabled={action.busy} onConfirm={() => remove(m)} />
                    )}
                  </td>
                )}
              </tr>
            );
          })}
        </DataTable>
      )}
      <Pager list={list} what="Member" />
    </section>
  );
}
