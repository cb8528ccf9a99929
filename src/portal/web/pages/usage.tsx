import { useState } from 'preact/hooks';
import { call } from '../api';
import { Pager } from '../components/pager';
import { ProblemBox } from '../components/problem-box';
import { when } from '../format';
import { usePolling } from '../poll';
import type { Invoice, Limits, Usage } from '../types';
import { useAction } from '../use-action';
import { usePaged, v0Page } from '../use-paged';
import { atLeast, useActing } from '../workspace';
import { DataTable } from '../components/data-table';

/** Usage is metered every tick: the figures are read again this often. */
const USAGE_REFRESH_MS = 10_000;
/** Plans billed by invoice; the others have none (the API answers 403 billing.not_available). */
const INVOICED = new Set(['payg', 'team']);

/** USD as the API gives it (up to 6 decimals): shown to the cent, or finer when the cent hides it. */
const usd = (n: number) => `$${n >= 0.01 || n === 0 ? n.toFixed(2) : n.toFixed(6)}`;
const cap = (n: number | null) => (n === null ? 'none' : usd(n));
const seconds = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 1 });
/** A cap field as the API takes it: empty is no cap; the API checks the amount (≤ 6 decimals, ≥ 0). */
const capInput = (text: string) => (text.trim() === '' ? null : Number(text.trim()));

/** This period's usage (managed and self apart), the caps (admins change them) and the invoices. */
export function UsagePage() {
  const { workspace } = useActing();
  const [usage, setUsage] = useState<Usage>();
  const [limits, setLimits] = useState<Limits>();
  const [draft, setDraft] = useState<{ soft: string; hard: string }>();
  const action = useAction();
  const read = useAction();
  usePolling(
    async (signal) => {
      await read.run(async () => {
        const [u, l] = await Promise.all([
          call<Usage>('GET', '/v0/billing/usage', { signal }),
          call<Limits>('GET', '/v0/billing/limits', { signal }),
        ]);
        setUsage(u);
        setLimits(l);
      });
    },
    USAGE_REFRESH_MS,
    true,
    [workspace.id],
  );
  const invoiced = INVOICED.has(workspace.plan);
  const invoices = usePaged<Invoice>(
    (cursor, signal) =>
      invoiced ? v0Page('/v0/billing/invoices', 12, cursor, signal) : Promise.resolve({ items: [], next: null }),
    [workspace.id],
  );
  const save = (e: Event) => {
    e.preventDefault();
    if (!draft) return;
    void action.run(async () => {
      setLimits(
        await call<Limits>('PATCH', '/v0/billing/limits', {
          body: { softCapUsd: capInput(draft.soft), hardCapUsd: capInput(draft.hard) },
        }),
      );
      setDraft(undefined);
    });
  };

  return (
    <section>
      <h1>Usage and limits</h1>
      <p class="note">Plan: {workspace.plan || 'unknown'}.</p>
      <ProblemBox problem={read.problem} />
      {usage && (
        <>
          <h2>
            This period ({when(usage.windowStart)} to {when(usage.windowEnd)})
          </h2>
          <dl class="figures">
            {(
              [
                ['Managed pool, estimate', usd(usage.managed.estimateUsd)],
                ['Managed CPU-seconds', seconds(usage.managed.cpuSeconds)],
                ['Managed GB-seconds', seconds(usage.managed.gbSeconds)],
                ['Your agents’ CPU-seconds (never billed)', seconds(usage.self.cpuSeconds)],
              ] as const
            ).map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        </>
      )}
      {limits && (
        <>
          <h2>Limits</h2>
          <p>
            Soft cap: {cap(limits.softCapUsd)} (an audit entry when crossed) · Hard cap: {cap(limits.hardCapUsd)}{' '}
            (managed jobs past it are refused)
          </p>
          {limits.pending && (
            <p class="note" role="status">
              Waiting for the next meter tick: soft {cap(limits.pending.softCapUsd)}, hard{' '}
              {cap(limits.pending.hardCapUsd)} (asked {when(limits.pending.requestedAt)}).
            </p>
          )}
          {atLeast(workspace.role, 'admin') && !draft && (
            <button
              type="button"
              class="secondary"
              onClick={() =>
                setDraft({ soft: limits.softCapUsd?.toString() ?? '', hard: limits.hardCapUsd?.toString() ?? '' })
              }
            >
              Change limits
            </button>
          )}
          {draft && (
            <form class="inline" onSubmit={save} aria-label="Limits">
              <label>
                <span>Soft cap (USD)</span>
                <input
                  inputMode="decimal"
                  placeholder="none"
                  value={draft.soft}
                  onInput={(e) => setDraft({ ...draft, soft: e.currentTarget.value })}
                />
              </label>
              <label>
                <span>Hard cap (USD)</span>
                <input
                  inputMode="decimal"
                  placeholder="none"
                  value={draft.hard}
                  onInput={(e) => setDraft({ ...draft, hard: e.currentTarget.value })}
                />
              </label>
              <button type="submit" disabled={action.busy}>
                Save limits
              </button>
              <button type="button" class="secondary" onClick={() => setDraft(undefined)}>
                Keep
              </button>
            </form>
          )}
          <ProblemBox problem={action.problem} />
        </>
      )}
      <h2>Invoices</h2>
      {!invoiced && <p class="note">The {workspace.plan} plan has no invoices.</p>}
      <ProblemBox problem={invoices.problem} />
      {invoiced && invoices.page && invoices.page.items.length === 0 && <p>No invoices yet.</p>}
      {invoices.page && invoices.page.items.length > 0 && (
        <DataTable
          label="Invoices list"
          columns={['Period', 'Status', 'Credit applied', 'Total', { name: 'Lines', wide: true }]}
        >
          {invoices.page.items.map((i) => (
            <tr key={i.id}>
              <td>
                {when(i.periodStart)} to {when(i.periodEnd)}
              </td>
              <td>{i.status}</td>
              <td>{usd(i.creditUsd)}</td>
              <td>{usd(i.totalUsd)}</td>
              <td class="wide">{i.lines.length}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager list={invoices} what="Invoice" />
    </section>
  );
}
