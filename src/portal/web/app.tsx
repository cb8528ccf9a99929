import { useEffect, useState } from 'preact/hooks';
import { type Problem, call, currentWorkspace, problemOf } from './api';
import { ProblemBox } from './components/problem-box';
import { Shell } from './components/shell';
import { AgentsPage } from './pages/agents';
import { AuditPage } from './pages/audit';
import { JobPage } from './pages/job';
import { JobsPage } from './pages/jobs';
import { KeysPage } from './pages/keys';
import { LoginPage } from './pages/login';
import { MembersPage } from './pages/members';
import { UsagePage } from './pages/usage';
import { WebhookPage, WebhooksPage } from './pages/webhooks';
import { Link, usePlace } from './router';
import type { Page, Session, Workspace } from './types';
import { ActingContext } from './workspace';

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

  const actingId = currentWorkspace() ?? signed.session.workspaceId;
  // A workspace not (or no longer) in the list: shown with the least role; the API decides.
  const workspace = signed.workspaces.find((w) => w.id === actingId) ?? {
    id: actingId,
    name: actingId,
    role: 'member' as const,
    plan: '',
  };
  const [, section, id] = /^\/([a-z]+)(?:\/([^/]+))?$/.exec(path) ?? [];
  const detail = id ? decodeURIComponent(id) : undefined;
  let page;
  if (section === 'jobs') page = detail ? <JobPage jobId={detail} /> : <JobsPage query={query} />;
  else if (section === 'agents' && !detail) page = <AgentsPage />;
  else if (section === 'keys' && !detail) page = <KeysPage />;
  else if (section === 'members' && !detail) page = <MembersPage />;
  else if (section === 'webhooks') page = detail ? <WebhookPage webhookId={detail} /> : <WebhooksPage />;
  else if (section === 'audit' && !detail) page = <AuditPage query={query} />;
  else if (section === 'usage' && !detail) page = <UsagePage />;
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
    <ActingContext.Provider value={{ workspace, userId: signed.session.user.id }}>
      <Shell session={signed.session} workspaces={signed.workspaces} acting={actingId} path={path}>
        {page}
      </Shell>
    </ActingContext.Provider>
  );
}
