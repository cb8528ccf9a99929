import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { type Problem, call, problemOf } from '../api';
import { Link, navigate, within } from '../router';
import type { Session, Workspace } from '../types';
import { ProblemBox } from './problem-box';

interface ShellProps {
  session: Session;
  workspaces: Workspace[];
  /** The workspace the page acts in. */
  acting: string;
  path: string;
  children: ComponentChildren;
}

/** The frame of every signed-in page: where you are, which workspace, who you are, and a way out. */
export function Shell({ session, workspaces, acting, path, children }: ShellProps) {
  const [problem, setProblem] = useState<Problem>();
  const switchTo = (id: string) => navigate(id === session.workspaceId ? '/jobs' : `/jobs?workspace=${encodeURIComponent(id)}`);
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
      <header class="top">
        <Link class="brand" href={within('/jobs')}>
          Compute
        </Link>
        <nav aria-label="Main">
          <Link href={within('/jobs')} aria-current={path.startsWith('/jobs') ? 'page' : undefined}>
            Jobs
          </Link>
        </nav>
        <div class="who">
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
