import { loadCliConfig } from '../config/cli';
import { readJson, removeFile, writePrivateJson } from './config-files';
import { type Session, requireSession } from './session';
import type { V0Session } from './v0-client';

// The workspace `compute workspaces use` chose: later /v0 calls act in it (X-Compute-Workspace).
// It is kept beside the session with whose choice it was, so logging in as someone else, or
// against another API, starts from that login's own workspace.

interface Chosen {
  workspaceId: string;
  email: string;
  apiUrl: string;
}

const FILE = 'workspace.json';
const configDir = () => loadCliConfig().configDir;

/** The workspace this session chose to act in, if any. */
export async function activeWorkspaceOf(session: Session): Promise<string | undefined> {
  const chosen = await readJson<Chosen>(configDir(), FILE);
  return chosen && chosen.email === session.email && chosen.apiUrl === session.apiUrl ? chosen.workspaceId : undefined;
}

export async function setActiveWorkspace(session: Session, workspaceId: string): Promise<void> {
  await writePrivateJson(configDir(), FILE, {
    workspaceId,
    email: session.email,
    apiUrl: session.apiUrl,
  } satisfies Chosen);
}

export const clearActiveWorkspace = (): Promise<boolean> => removeFile(configDir(), FILE);

/** The live session, acting in the chosen workspace: for calls that act in "the" workspace (tokens). */
export async function sessionInActiveWorkspace(): Promise<Session & V0Session> {
  const session = await requireSession();
  return { ...session, activeWorkspace: await activeWorkspaceOf(session) };
}
