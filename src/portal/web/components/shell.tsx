import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Problem, call, problemOf } from '../api';
import { Link, navigate, within } from '../router';
import type { Role, Session, Workspace } from '../types';
import { atLeast } from '../workspace';
import { ProblemBox } from './problem-box';

interface ShellProps {
  session: Session;
  workspaces: Workspace[];
  /** The workspace the page acts in. */
  acting: string;
  path: string;
  children: ComponentChildren;
}

/** The sections of the portal, in the order the menu shows them. */
const SECTIONS: Array<[href: string, name: string, least: Role]> = [
  ['/jobs', 'Jobs', 'member'],
  ['/agents', 'Agents', 'member'],
  ['/keys', 'Keys', 'member'],
  ['/members', 'Members', 'member'],
  ['/webhooks', 'Webhooks', 'member'],
  ['/audit', 'Audit log', 'admin'],
  ['/usage', 'Usage', 'member'],
];

/** The frame of every signed-in page: where you are, which workspace, who you are, and a way out. */
export function Shell({ session, workspaces, acting, path, children }: ShellProps) {
  const [problem, setProblem] = useState<Problem>();
  // At phone width the sections and the account fold behind a Menu button; a new page folds them.
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path, acting]);
  // Another workspace: the same section, at its start (a job or webhook of this one is not there).
  const role = workspaces.find((w) => w.id === acting)?.role ?? 'member';
  const section = SECTIONS.find(([href]) => path.startsWith(href))?.[0] ?? '/jobs';
  const switchTo = (id: string) =>
    navigate(id === session.workspaceId ? section : `${section}?workspace=${encodeURIComponent(id)}`);
  const signOut = async () => {
    try {
      await call('POST', '/api/auth/sign-out', { body: {}, anonymous: true, inWorkspace: false });
      navigate('/login', true);
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  return (
    <div class="shell">
      <header class={open ? 'top open' : 'top'}>
        <Link class="brand" href={within('/jobs')}>
          Compute
        </Link>
        <button
          type="button"
          class="secondary menu-toggle"
          aria-expanded={open}
          aria-controls="main-nav account"
          onClick={() => setOpen(!open)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main">
          {SECTIONS.filter(([, , least]) => atLeast(role, least)).map(([href, name]) => (
            <Link key={href} href={within(href)} aria-current={path.startsWith(href) ? 'page' : undefined}>
              {name}
            </Link>
          ))}
        </nav>
        <div id="account" class="who">
          <label class="workspace">
            <span>Workspace</span>
            <select value={acting} onChange={(e) => switchTo(e.currentTarget.value)}>
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name} ({w.role})
                </option>
              ))}
            </select>
          </label>
          <span class="email">{session.user.email}</span>
          <button type="button" class="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <ProblemBox problem={problem} />
      <main id="main">{children}</main>
    </div>
  );
}
