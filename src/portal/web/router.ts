import { type AnchorHTMLAttributes, type ComponentChildren, h } from 'preact';
import { useEffect, useState } from 'preact/hooks';

// Pages are addresses: the history API moves between them without a reload, and the server
// answers the same page for each, so a reload or a shared link lands on the same view.

const listeners = new Set<() => void>();
const changed = () => listeners.forEach((l) => l());
addEventListener('popstate', changed);

/** The page's address without its origin: what a link or `next=` names. */
export const placeHref = () => `${location.pathname}${location.search}`;

export function navigate(to: string, replace = false): void {
  if (to === placeHref()) return;
  history[replace ? 'replaceState' : 'pushState'](null, '', to);
  changed();
}

/** The current address, re-rendering its user when it changes. */
export function usePlace(): { path: string; query: URLSearchParams } {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const l = () => setVersion((v) => v + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/** `path` with the workspace the page acts in, so every link keeps it. */
export function within(path: string, params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  const workspace = new URLSearchParams(location.search).get('workspace');
  if (workspace) query.set('workspace', workspace);
  for (const [k, v] of Object.entries(params)) if (v) query.set(k, v);
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}

/** A link that moves within the portal (a real link: it opens in a new tab, too). */
export function Link(
  props: { href: string; children: ComponentChildren } & Omit<
    AnchorHTMLAttributes<HTMLAnchorElement>,
    'href' | 'children'
  >,
) {
  const { href, children, ...rest } = props;
  const onClick = (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return h('a', { ...rest, href, onClick }, children);
}
