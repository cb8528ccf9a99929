import { useEffect, useState } from 'preact/hooks';
import { type Problem, call, currentWorkspace, problemOf } from './api';
import { ProblemBox } from './components/problem-box';
import { Shell } from './components/shell';
import { JobPage } from './pages/job';
import { JobsPage } from './pages/jobs';
import { LoginPage } from './pages/login';
import { Link, usePlace } from './router';
import type { Page, Session, Workspace } from './types';

interface Signed {
  session: Session;
  workspaces: Workspace[];
}

/** Who is signed in and where they may act; a 401 sends the page to login (api.ts). */
async function whoAmI(): Promise<Signed> {
  const [session, workspaces] = await Promise.all([
    call<Session>('GET', '/v0/session', { inWorkspace: false }),
    call<Page<Workspace>>('GET', '/v0/workspaces?pageSize=200', { inWorkspace: false }),
  ]);
  return { session, workspaces: workspaces.items };
}

/** The portal: the login page, or the signed-in frame around the page its address names. */
export function App() {
  const { path, query } = usePlace();
  const [signed, setSigned] = useState<Signed>();
  const [problem, setProblem] = useState<Problem>();
  const [checked, setChecked] = useState(0);
  const onLogin = path === '/login';

  useEffect(() => {
    if (onLogin) return;
    let live = true;
    whoAmI().then(
      (s) => live && setSigned(s),
      (err) => live && setProblem(problemOf(err)),
    );
    return () => void (live = false);
  }, [onLogin, checked]);

  const signedIn = () => {
    setSigned(undefined);
    setChecked((c) => c + 1);
  };
  if (onLogin) return <LoginPage next={query.get('next')} onSignedIn={signedIn} />;
  if (!signed) return <main id="main">{problem ? <ProblemBox problem={problem} /> : <p>Loading…</p>}</main>;

  const jobMatch = /^\/jobs\/([^/]+)$/.exec(path);
  let page;
  if (path === '/jobs') page = <JobsPage query={query} />;
  else if (jobMatch) page = <JobPage jobId={decodeURIComponent(jobMatch[1])} />;
  else
    page = (
      <section>
        <h1>Not found</h1>
        <p>
          There is no page at {path}. <Link href="/jobs">Go to the jobs</Link>.
        </p>
      </section>
    );
  return (
    <Shell session={signed.session} workspaces={signed.workspaces} acting={currentWorkspace() ?? signed.session.workspaceId} path={path}>
      {page}
    </Shell>
  );
}
