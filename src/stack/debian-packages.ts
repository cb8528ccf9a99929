import { childEnvironment } from '../config';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { withLock } from './tools';

// Debian packages the tests use, installed at an exact version with apt-get (as root). Unlike
// ./tools these are system-wide, so the version dpkg reports is the only marker we need.

/**
 * Versions pinned to what Debian bookworm ships; a bump is a deliberate edit here. A version
 * written `>= V` is a floor, for a package the security archive keeps only its newest build of:
 * what it installs is that build, once the installed one is older than V or absent.
 */
export const DEBIAN_PACKAGE_VERSIONS = {
  // The Compose v1 CLI that bookworm packages; it validates docker-compose.yml without an engine.
  'docker-compose': '1.29.2-3',
  // The browser the portal's tests drive through playwright-core. bookworm-security replaces
  // each build with the next (a new major every month), so an exact pin stops installing.
  chromium: '>= 156',
  // The sandbox a managed agent runs each job in (src/reference-agent/sandbox.ts).
  bubblewrap: '0.8.0-2+deb12u1',
} as const;

type Log = (msg: string) => void;

/** Installs `name` at `version` (exactly, or at least a floor `>= V`) unless dpkg already has it. */
export async function ensureDebianPackage(name: string, version: string, log: Log = () => undefined): Promise<void> {
  const floor = version.startsWith('>= ') ? version.slice(3) : undefined;
  const target = floor === undefined ? `${name}=${version}` : name;
  const satisfied = async (): Promise<boolean> => {
    const installed = await installedVersion(name);
    if (installed === null || floor === undefined) return installed === version;
    return atLeast(installed, floor);
  };
  if (await satisfied()) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${name} ${version} is not installed and installing it needs root: apt-get install ${target}`);
  }
  // One lock for every package: apt and dpkg serialise the whole system, and a second process would
  // fail on dpkg's lock instead of waiting for it.
  await withLock(path.join(os.tmpdir(), 'compute-apt.lock'), log, async () => {
    // Another process may have installed it while we waited for the lock.
    if (await satisfied()) return;
    const install = () => run('apt-get', ['install', '-y', '--no-install-recommends', target], log);
    // apt-get update is slow and touches the network, so only when the lists are missing or stale.
    let updated = false;
    if (await listsEmpty()) {
      await run('apt-get', ['update'], log);
      updated = true;
    }
    try {
      await install();
    } catch (err) {
      if (updated) throw err;
      log(`installing ${target} failed; refreshing the package lists and trying again`);
      await run('apt-get', ['update'], log);
      await install();
    }
    const now = await installedVersion(name);
    if (!(await satisfied())) throw new Error(`apt-get installed ${name} ${now ?? '(nothing)'}, not ${version}`);
    log(`installed ${name} ${now}`);
  });
}

/** The installed version, or null when dpkg knows the package only as removed or not at all. */
async function installedVersion(name: string): Promise<string | null> {
  const out = await run('dpkg-query', ['-W', '-f=${db:Status-Status} ${Version}', name]).catch(() => '');
  const [status, version] = out.trim().split(' ');
  return status === 'installed' && version ? version : null;
}

/** Debian's own ordering of versions (epochs, tildes): `dpkg --compare-versions a ge b`. */
function atLeast(a: string, b: string): Promise<boolean> {
  return run('dpkg', ['--compare-versions', a, 'ge', b]).then(
    () => true,
    () => false,
  );
}

async function listsEmpty(): Promise<boolean> {
  const entries = await fs.readdir('/var/lib/apt/lists').catch(() => []);
  return !entries.some((entry) => entry.includes('_Packages'));
}

/** Runs a command to its end and resolves with its stdout; lines go to `log` as they come. */
function run(command: string, args: string[], log?: Log): Promise<string> {
  const shown = [command, ...args].join(' ');
  return new Promise((resolve, reject) => {
    // Noninteractive: a package's debconf prompt would otherwise wait forever on a closed stdin.
    const child = spawn(command, args, {
      env: childEnvironment({ DEBIAN_FRONTEND: 'noninteractive' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: string[] = [];
    const tail: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk.toString()));
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => {
        log?.(line);
        tail.push(line);
        if (tail.length > 5) tail.shift();
      });
    }
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new Error(`${shown}: "${command}" not found (a Debian system is needed)`) : err),
    );
    child.once('close', (code, signal) =>
      code === 0
        ? resolve(stdout.join(''))
        : reject(
            new Error(`${shown} failed (${signal ?? `exit ${code}`})${tail.length ? `: ${tail.join('\n')}` : ''}`),
          ),
    );
  });
}
