import fs from 'node:fs/promises';
import path from 'node:path';

/** What `compute login` keeps between commands: one session file, readable by its owner only. */
export interface Session {
  apiUrl: string;
  token: string;
  expiresAt: string;
  email: string;
  workspaceId: string;
}

const fileIn = (configDir: string) => path.join(configDir, 'session.json');

export async function saveSession(configDir: string, session: Session): Promise<string> {
  await fs.mkdir(configDir, { recursive: true, mode: 0o700 });
  const file = fileIn(configDir);
  await fs.writeFile(file, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  await fs.chmod(file, 0o600);
  return file;
}

/** The saved session if there is one and it has not expired. */
export async function loadSession(configDir: string): Promise<Session | null> {
  const text = await fs.readFile(fileIn(configDir), 'utf8').catch(() => null);
  if (!text) return null;
  try {
    const s = JSON.parse(text) as Session;
    return Date.parse(s.expiresAt) > Date.now() ? s : null;
  } catch {
    return null;
  }
}

export async function clearSession(configDir: string): Promise<boolean> {
  return fs.rm(fileIn(configDir)).then(() => true, () => false);
}
