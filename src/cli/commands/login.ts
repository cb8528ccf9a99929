import type { Command } from 'commander';
import { loadCliConfig } from '../../config/cli';
import { CliError, callApi } from '../api-client';
import { clearSession, loadSession, requireSession, saveSession } from '../session';
import { ask, dim, green, status } from '../terminal';

interface Verified {
  token: string;
  expiresAt: string;
  user: { id: string; email: string; workspaceId: string };
}

/** Ends the session on the service (`POST /api/auth/sign-out`); false when the service could not say so. */
async function signOut(apiUrl: string, token: string): Promise<boolean> {
  try {
    const res = await fetch(new URL('/api/auth/sign-out', apiUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, 'X-Compute-CSRF': '1' },
      body: '{}',
      signal: AbortSignal.timeout(10_000),
    });
    return res.ok;
  } catch {
    return false;
  }
}

/** `compute login` and `compute logout`: the portal's e-mailed-code login, from a terminal. */
export function registerLoginCommands(program: Command): void {
  program
    .command('login')
    .description('Log in with a code sent to your e-mail; the session is kept for later commands')
    .option('--email <address>', 'your e-mail address (asked for when omitted)')
    .option('--api <url>', 'API base URL (default: COMPUTE_API_URL or http://127.0.0.1:3000)')
    .action(async (opts: { email?: string; api?: string }) => {
      const config = loadCliConfig();
      const apiUrl = opts.api ?? config.apiUrl;
      const email = opts.email ?? (await ask('E-mail: '));
      if (!email) throw new CliError('an e-mail address is needed');
      status(dim(`Sending a login code to ${email}…`));
      await callApi({ apiUrl }, '/auth/request-otp', { email });
      const code = await ask(`Code sent to ${email} (valid 10 minutes). Enter the 6 digits: `);
      if (!/^\d{6}$/.test(code)) throw new CliError('the code is six digits');
      const out = await callApi<Verified>({ apiUrl }, '/auth/verify-otp', { email, code });
      const file = await saveSession(config.configDir, {
        apiUrl,
        token: out.token,
        expiresAt: out.expiresAt,
        email: out.user.email,
        workspaceId: out.user.workspaceId,
      });
      status(`${green('✔')} Logged in as ${out.user.email} (workspace ${out.user.workspaceId}) until ${out.expiresAt}`);
      status(dim(`session saved in ${file}`));
    });

  program
    .command('print-token')
    .description(
      'Print the current session token alone on stdout, for Authorization: Bearer (e.g. T=$(compute print-token))',
    )
    .action(async () => {
      process.stdout.write(`${(await requireSession()).token}\n`);
    });

  program
    .command('logout')
    .description('End the saved session on the service and forget it')
    .action(async () => {
      const { configDir } = loadCliConfig();
      const session = await loadSession(configDir);
      // The service refuses the token from now on; a copy of it elsewhere is of no use either.
      const ended = session ? await signOut(session.apiUrl, session.token) : true;
      const removed = await clearSession(configDir);
      if (!removed) return status('No session was saved.');
      status(
        ended
          ? 'Logged out.'
          : 'Logged out here; the service could not be reached, so the token stays valid until it expires.',
      );
    });
}
