import { loadCliConfig } from '../config/cli';
import { CliError } from './api-client';
import { readJson, removeFile, writePrivateJson } from './config-files';

/** What `compute login` keeps between commands: one session file, readable by its owner only. */
export interface Session {
  apiUrl: string;
  token: string;
  expiresAt: string;
  email: string;
  workspaceId: string;
}

const FILE = 'session.json';

export const saveSession = (configDir: string, session: Session): Promise<string> =>
  writePrivateJson(configDir, FILE, session);

/** The saved session if there is one and it has not expired. */
export async function loadSession(configDir: string): Promise<Session | null> {
  const s = await readJson<Session>(configDir, FILE);
  return s && Date.parse(s.expiresAt) > Date.now() ? s : null;
}

export const clearSession = (configDir: string): Promise<boolean> => removeFile(configDir, FILE);

/** The live session, or the one-line advice to log in. */
export async function requireSession(configDir = loadCliConfig().configDir): Promise<Session> {
  const session = await loadSession(configDir);
  if (!session)
    throw new CliError('no live session: run `compute login` first (not logged in, or the session expired)');
  return session;
}
