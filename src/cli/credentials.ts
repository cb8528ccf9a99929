import fs from 'node:fs/promises';
import path from 'node:path';
import { loadCliConfig } from '../config/cli';
import { CliError, type Target } from './api-client';
import { activeWorkspaceOf } from './active-workspace';
import { loadSession } from './session';

export interface TargetFlags {
  api?: string;
  key?: string;
}

/**
 * Flags first, then COMPUTE_API_URL / COMPUTE_API_KEY, then the `compute login` session (acting in
 * the workspace `compute workspaces use` chose), and last the key `npm run dev` keeps in its data
 * folder, so `npx compute run job.json` just works there.
 */
export async function resolveTarget(flags: TargetFlags): Promise<Target> {
  const config = loadCliConfig();
  const apiKey = flags.key ?? config.apiKey;
  if (apiKey) return { apiUrl: flags.api ?? config.apiUrl, apiKey };
  const session = await loadSession(config.configDir);
  if (session)
    return { apiUrl: flags.api ?? session.apiUrl, token: session.token, workspace: await activeWorkspaceOf(session) };
  const devKey = (await fs.readFile(path.join(config.dataDir, 'dev-api-key'), 'utf8').catch(() => '')).trim();
  if (devKey) return { apiUrl: flags.api ?? config.apiUrl, apiKey: devKey };
  throw new CliError('no credentials: pass --key, set COMPUTE_API_KEY, or run `compute login`');
}

/** Adds --api and --key to a command. */
export const targetOptions = <T extends { option: (flags: string, description: string) => T }>(cmd: T): T =>
  cmd
    .option('--api <url>', 'API base URL (default: COMPUTE_API_URL or http://127.0.0.1:3000)')
    .option('--key <key>', 'API key (default: COMPUTE_API_KEY, else your login session)');
