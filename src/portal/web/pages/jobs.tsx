import { useEffect, useState } from 'preact/hooks';
import { type Problem, call, problemOf } from '../api';
import { ProblemBox } from '../components/problem-box';
import { StateBadge } from '../components/state-badge';
import { ago, ran, when } from '../format';
import { usePolling } from '../poll';
import { Link, navigate, within } from '../router';
import { JOB_STATES, type Job, type Page } from '../types';
import { DataTable } from '../components/data-table';

const PAGE_SIZE = 20;
/** The list has no change stream: it is read again this often, so new jobs appear by themselves. */
export const JOBS_REFRESH_MS = 3000;

/** `team=ml, env=prod` or `team=ml env=prod`: the label filters, each key=value. */
const labelFilters = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** The jobs of the workspace: filtered by state and labels (kept in the address), paged, kept current. */
export function JobsPage({ query }: { query: URLSearchParams }) {
  const state = query.get('state') ?? '';
  const label = query.get('label') ?? '';
  const pageToken = query.get('page') ?? '';
  const [page, setPage] = useState<Page<Job>>();
  const [problem, setProblem] = useState<Problem>();
  const [draft, setDraft] = useState({ state, label });
  // Back and forward change the filters in the address: the form follows.
  useEffect(() => setDraft({ state, label }), [state, label]);

  usePolling(
    async (signal) => {
      const q = new URLSearchParams({ pageSize: String(PAGE_SIZE) });
      if (state) q.append('state', state);
      for (const l of labelFilters(label)) q.append('label', l);
      if (pageToken) q.set('pageToken', pageToken);
      try {
        setPage(await call<Page<Job>>('GET', `/v0/jobs?${q}`, { signal }));
        setProblem(undefined);
      } catch (err) {
        if (!signal.aborted) setProblem(problemOf(err));
      }
    },
    JOBS_REFRESH_MS,
    true,
    [state, label, pageToken, query.get('workspace')],
  );

  const apply = (e: Event) => {
    e.preventDefault();
    navigate(within('/jobs', { state: draft.state, label: draft.label.trim() }));
  };

  return (
    <section class="jobs">
      <h1>Jobs</h1>
      <form class="filters" onSubmit={apply} aria-label="Filter jobs">
        <label>
          <span>State</span>
          <select value={draft.state} onChange={(e) => setDraft({ ...draft, state: e.currentTarget.value })}>
            <option value="">Any</option>
            {JOB_STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Label</span>
          <input
            placeholder="key=value"
            value={draft.label}
            onInput={(e) => setDraft({ ...draft, label: e.currentTarget.value })}
          />
        </label>
        <button type="submit">Filter</button>
      </form>
      <p class="note">Refreshed every {JOBS_REFRESH_MS / 1000} s: new jobs appear by themselves.</p>
      <ProblemBox problem={problem} />
      {page && page.items.length === 0 && <p>No jobs{state || label ? ' match these filters' : ' yet'}.</p>}
      {page && page.items.length > 0 && (
        <DataTable
          label="Jobs list"
          columns={[
            'Job',
            'State',
            'Command',
            { name: 'Labels', wide: true },
            { name: 'Created', wide: true },
            { name: 'Ran', wide: true },
            { name: 'Attempt', wide: true },
            { name: 'Agent', wide: true },
          ]}
        >
          {page.items.map((job) => (
            <tr key={job.id}>
              <td>
                <Link href={within(`/jobs/${job.id}`)}>{job.id}</Link>
              </td>
              <td>
                <StateBadge state={job.state} />
              </td>
              <td class="command" title={job.command}>
                {job.command.split('\n')[0]}
              </td>
              <td class="wide">
                {Object.entries(job.labels).map(([k, v]) => (
                  <span key={k} class="chip">
                    {k}={v}
                  </span>
                ))}
              </td>
              <td class="wide">
                <time dateTime={job.createdAt} title={when(job.createdAt)}>
                  {ago(job.createdAt)}
                </time>
              </td>
              <td class="wide">{ran(job)}</td>
              <td class="wide">{job.attempt}</td>
              <td class="wide">{job.agentId ?? '–'}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <nav class="pages" aria-label="Pages">
        {pageToken && <Link href={within('/jobs', { state, label })}>First page</Link>}
        {page?.nextPageToken && (
          <Link href={within('/jobs', { state, label, page: page.nextPageToken })}>Next page</Link>
        )}
      </nav>
    </section>
  );
}
