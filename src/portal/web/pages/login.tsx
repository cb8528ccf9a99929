import { useState } from 'preact/hooks';
import { type Problem, call, problemOf } from '../api';
import { ProblemBox } from '../components/problem-box';
import { navigate } from '../router';

/** Only a path of this site: `next` comes from the address bar, so it must not lead elsewhere. */
const safeNext = (next: string | null) =>
  next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/jobs';

/**
 * Login by e-mailed code. The code is exchanged at /api/auth/session, which answers with the
 * session in an HttpOnly cookie: this page never holds it.
 */
export function LoginPage({ next, onSignedIn }: { next: string | null; onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [sentTo, setSentTo] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem>();

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await work();
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(false);
    }
  };
  const sendCode = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await call('POST', '/api/auth/request-otp', { body: { email }, anonymous: true, inWorkspace: false });
      setSentTo(email);
    });
  };
  const signIn = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await call('POST', '/api/auth/session', {
        body: { email: sentTo, code: code.trim() },
        anonymous: true,
        inWorkspace: false,
      });
      onSignedIn();
      navigate(safeNext(next), true);
    });
  };

  return (
    <main id="main" class="login">
      <h1>Sign in to Compute</h1>
      <form onSubmit={sendCode}>
        <label for="login-email">E-mail</label>
        <input
          id="login-email"
          type="email"
          autocomplete="email"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Send code
        </button>
      </form>
      {sentTo && (
        <form onSubmit={signIn}>
          <p class="note" role="status">
            If {sentTo} may sign in, a 6-digit code is on its way there; it works for 10 minutes.
          </p>
          <label for="login-code">Code</label>
          <input
            id="login-code"
            inputMode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9]{6}"
            maxLength={6}
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      <ProblemBox problem={problem} />
    </main>
  );
}
