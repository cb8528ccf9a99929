import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { childEnvironment } from '../../src/config';
import { newEmail } from './auth';
import { testEnv } from './env';

const ROOT = path.resolve(__dirname, '../..');
/** What `npx compute` runs: package.json's bin. */
export const COMPUTE_BIN = path.join(
  ROOT,
  (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: { compute: string } }).bin.compute,
);

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Whatever credentials or endpoints the developer running the suite has set: a test gives its own.
const DEVELOPER_SETTINGS = [
  'COMPUTE_API_KEY',
  'COMPUTE_AGENT_KEY',
  'COMPUTE_API_URL',
  'COMPUTE_CONFIG_DIR',
  'COMPUTE_DATA_DIR',
];

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
 * `compute …` against the suite's stack: the package's bin (bin/compute.js) run by node, as
 * `npx compute` runs it without npx's own second of start-up; startComputeInTerminal goes through
 * npx, as a person types it. `interact` may write to the command's stdin while it runs (answers to
 * its prompts).
 */
export function compute(
  args: string[],
  opts: { env?: Record<string, string>; interact?: (stdin: NodeJS.WritableStream) => Promise<void> } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [COMPUTE_BIN, ...args], {
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

/** A `compute` command still running: its output so far, and its end within a deadline. */
export interface RunningCli {
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves once `pattern` shows in its stdout or stderr; fails if it exits first or `timeoutMs` passes. */
  printed(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Its end; past `timeoutMs` it is killed (with everything it started) and this fails. */
  finished(timeoutMs?: number): Promise<CliRun>;
  /** SIGKILL to its whole process group, if it is still running. */
  kill(): void;
  /** Its exit code once it has ended (null after a signal); undefined while it runs. */
  exitCode(): number | null | undefined;
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

function launch(command: string, args: string[], env: Record<string, string> | undefined, what: string): RunningCli {
  // Its own process group, so a deadline can stop npx and the CLI under it together.
  const child = spawn(command, args, {
    cwd: ROOT,
    env: cliEnvironment({ DATABASE_URL: testEnv().vars.DATABASE_URL, COMPUTE_API_URL: testEnv().url, ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  const wake = new Set<() => void>();
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
    for (const w of wake) w();
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    for (const w of wake) w();
  });
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (c) => {
      code = c;
      for (const w of wake) w();
      resolve(c);
    }),
  );
  const clean = (s: string) => s.replace(/^npm warn .*\n/gm, '');
  const kill = () => {
    if (code !== undefined) return;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
  };
  const until = async (done: () => boolean, timeoutMs: number, failure: () => string) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(failure());
      let w!: () => void;
      let timer!: NodeJS.Timeout;
      await new Promise<void>((resolve) => {
        w = resolve;
        wake.add(w);
        timer = setTimeout(resolve, left);
      });
      wake.delete(w);
      clearTimeout(timer);
    }
  };
  return {
    pid: child.pid!,
    stdout: () => clean(stdout),
    stderr: () => clean(stderr),
    async printed(pattern, timeoutMs = 30_000) {
      await until(
        () => pattern.test(stdout) || pattern.test(stderr) || code !== undefined,
        timeoutMs,
        () => `${what} did not print ${pattern} within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
      );
      if (!pattern.test(stdout) && !pattern.test(stderr))
        throw new Error(`${what} exited (${code}) before printing ${pattern}\nstdout: ${stdout}\nstderr: ${stderr}`);
    },
    async finished(timeoutMs = 30_000) {
      try {
        await until(
          () => code !== undefined,
          timeoutMs,
          () => `${what} still running after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        );
      } catch (err) {
        kill();
        await exited;
        throw err;
      }
      return { code: await exited, stdout: clean(stdout), stderr: clean(stderr) };
    },
    kill,
    exitCode: () => code,
  };
}

/** `compute …` started in the background, with pipes for stdin, stdout and stderr. */
export function startCompute(args: string[], opts: { env?: Record<string, string> } = {}): RunningCli {
  return launch(process.execPath, [COMPUTE_BIN, ...args], opts.env, `compute ${args.join(' ')}`);
}

/**
 * `npx compute …` in a pseudo-terminal, as a person types it: stdout and stderr both arrive,
 * terminal-translated, on `stdout()`. `script` must `exec` the command: without SHELL it runs
 * dash, which would otherwise stay in between and take a Ctrl-C itself.
 */
export function startComputeInTerminal(args: string[], opts: { env?: Record<string, string> } = {}): RunningCli {
  const line = ['exec', 'npx', '--no-install', 'compute', ...args].map(quote).join(' ');
  return launch('/usr/bin/script', ['-qfec', line, '/dev/null'], opts.env, `compute ${args.join(' ')} (in a terminal)`);
}

/**
 * Types the mailed code into `compute login` once a new mail has arrived for `email` (a user made
 * through the API already has one).
 */
export const typeLoginCode = (email: string) => async (stdin: NodeJS.WritableStream) => {
  const mailed = testEnv().mailbox.count(email);
  for (let i = 0; testEnv().mailbox.count(email) === mailed; i++) {
    if (i > 400) throw new Error('no login code arrived');
    await new Promise((r) => setTimeout(r, 50));
  }
  stdin.write(`${testEnv().mailbox.codeFor(email)}\n`);
};

/** A person logged in through `compute login`, with a config folder of their own. */
export async function cliUser(email = newEmail()) {
  const env = { COMPUTE_CONFIG_DIR: cliConfigDir() };
  const login = await compute(['login', '--email', email], { env, interact: typeLoginCode(email) });
  assert.equal(login.code, 0, login.stderr);
  const session = JSON.parse(fs.readFileSync(path.join(env.COMPUTE_CONFIG_DIR, 'session.json'), 'utf8')) as {
    token: string;
    email: string;
    workspaceId: string;
  };
  const run = (...args: string[]) => compute(args, { env });
  /** Runs and insists on success: the whole run. */
  const succeed = async (...args: string[]) => {
    const out = await run(...args);
    assert.equal(out.code, 0, `compute ${args.join(' ')}: ${out.stderr}`);
    return out;
  };
  /** Runs and insists on success: its stdout. */
  const ok = async (...args: string[]) => (await succeed(...args)).stdout;
  return { env, session, run, ok, succeed };
}
