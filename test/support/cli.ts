import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { childEnvironment } from '../../src/config';
import { testEnv } from './env';

const ROOT = path.resolve(__dirname, '../..');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Whatever credentials or endpoints the developer running the suite has set: a test gives its own.
const DEVELOPER_SETTINGS = ['COMPUTE_API_KEY', 'COMPUTE_AGENT_KEY', 'COMPUTE_API_URL', 'COMPUTE_CONFIG_DIR', 'COMPUTE_DATA_DIR'];

/** This process's environment without the developer's own CLI settings, plus `given`. */
export function cliEnvironment(given: Record<string, string>): Record<string, string | undefined> {
  const inherited = childEnvironment();
  for (const name of DEVELOPER_SETTINGS) delete inherited[name];
  return { ...inherited, ...given };
}

/** A config folder of its own, so no developer's real session leaks into a test. */
export function cliConfigDir(): string {
  return fs.mkdtempSync(path.join(testEnv().dataDir, 'cli-'));
}

/**
 * `npx compute …` as a person types it, against the suite's stack. `interact` may write to the
 * command's stdin while it runs (answers to its prompts).
 */
export function compute(
  args: string[],
  opts: { env?: Record<string, string>; interact?: (stdin: NodeJS.WritableStream) => Promise<void> } = {},
): Promise<CliRun> {
  const child = spawn('npx', ['--no-install', 'compute', ...args], {
    cwd: ROOT,
    env: cliEnvironment({ DATABASE_URL: testEnv().vars.DATABASE_URL, COMPUTE_API_URL: testEnv().url, ...opts.env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const interaction = opts.interact ? opts.interact(child.stdin) : Promise.resolve();
  return interaction
    .then(() => child.stdin.end())
    .then(() => exited)
    .then((code) => ({ code, stdout, stderr: stderr.replace(/^npm warn .*\n/gm, '') }));
}
