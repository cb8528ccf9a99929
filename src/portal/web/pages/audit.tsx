import { useEffect, useState } from 'preact/hooks';
import { Pager } from '../components/pager';
import { ProblemBox } from '../components/problem-box';
import { when } from '../format';
import { navigate, within } from '../router';
import type { AuditEntry } from '../types';
import { usePaged, v0Page } from '../use-paged';
import { useActing } from '../workspace';
import { DataTable } from '../components/data-table';

const PAGE_SIZE = 50;
const FILTERS = ['action', 'actor', 'targetId', 'since', 'until'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/** `2026-11-26T10:00` from a datetime-local field as the API's ISO instant (in the browser's zone). */
const instant = (local: string) => (local ? new Date(local).toISOString() : '');

/** The query the API takes for these filters: several actions, comma-separated, are any of them. */
function auditQuery(f: Filters): Record<string, string> {
  const q: Record<string, string> = {};
  if (f.actor.trim()) q.actor = f.actor.trim();
  if (f.targetId.trim()) q.targetId = f.targetId.trim();
  if (f.since) q.since = instant(f.since);
  if (f.until) q.until = instant(f.until);
  return q;
}
const actionsOf = (f: Filters) => f.action.split(/[\s,]+/).filter(Boolean);

/** The audit log (admin): filtered by action, actor, target and time (kept in the address), paged, and downloaded whole as JSONL. */
export function AuditPage({ query }: { query: URLSearchParams }) {
  const { workspace } = useActing();
  const applied = Object.fromEntries(FILTERS.map((k) => [k, query.get(k) ?? ''])) as Filters;
  const [draft, setDraft] = useState(applied);
  const key = FILTERS.map((k) => applied[k]).join('\n');
  useEffect(() => setDraft(applied), [key]);
  const path = `/v0/workspaces/${encodeURIComponent(workspace.id)}/audit`;
  const params = new URLSearchParams(auditQuery(applied));
  for (const a of actionsOf(applied)) params.append('action', a);
  const list = usePaged<AuditEntry>((cursor, signal) => v0Page(path, PAGE_SIZE, cursor, signal, params), [path, key]);
  const download = new URLSearchParams(params);
  download.set('format', 'jsonl');

  const apply = (e: Event) => {
    e.preventDefault();
    navigate(within('/audit', draft));
  };
  const field = (k: keyof Filters, label: string, time = false) => {
    const onInput = (e: { currentTarget: HTMLInputElement }) => setDraft({ ...draft, [k]: e.currentTarget.value });
    return (
      <label>
        <span>{label}</span>
        {time ? (
          <input type="datetime-local" value={draft[k]} onInput={onInput} />
        ) : (
          <input value={draft[k]} onInput={onInput} />
        )}
      </label>
    );
  };

  return (
    <section>
      <h1>Audit log</h1>
      <form class="filters" onSubmit={apply} aria-label="Filter the audit log">
        {field('action', 'Action')}
        {field('actor', 'Actor ID')}
        {field('targetId', 'Target ID')}
        {field('since', 'Since', true)}
        {field('until', 'Until', true)}
        <button type="submit">Filter</button>
        <a class="button secondary" href={`${path}?${download}`} download={`audit-${workspace.id}.jsonl`}>
          Download JSONL
        </a>
      </form>
      <p class="note">Newest first. The download holds every matching entry, oldest first, one JSON object per line.</p>
      <ProblemBox problem={list.problem} />
      {list.page && list.page.items.length === 0 && <p>No entries match.</p>}
      {list.page && list.page.items.length > 0 && (
        <DataTable
          label="Audit entries"
          columns={[
            'At',
            'Action',
            'Outcome',
            { name: 'Actor', wide: true },
            { name: 'Target', wide: true },
            { name: 'From', wide: true },
          ]}
        >
          {list.page.items.map((a) => (
            <tr key={a.id}>
              <td>{when(a.at)}</td>
              <td>
                <code>{a.action}</code>
              </td>
              <td class={a.outcome === 'denied' ? 'denied' : undefined}>{a.outcome}</td>
              <td class="wide">
                {a.actor.type} {a.actor.email ?? a.actor.id}
              </td>
              <td class="wide">
                {a.target.type} {a.target.id}
              </td>
              <td class="wide">{a.ip ?? '–'}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager list={list} what="Audit" />
    </section>
  );
}
