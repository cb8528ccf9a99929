import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

// A job's sandbox: bubblewrap (as root) gives it new PID, IPC and UTS namespaces, a root of its
// own with the host's /usr and /etc read-only, a fresh /proc and /dev, a private /tmp and its
// work folder at /work; setpriv then becomes the slot's unprivileged user with every capability
// gone, so nothing of the agent (its folder, its key, its process) is there to read or signal.

/** Where the job's work folder appears inside its sandbox. */
export const SANDBOX_WORK_DIR = '/work';

/** The system folders a command needs, read-only; `-try` for the ones a distribution may lack. */
const SYSTEM_BINDS = [
  ['--ro-bind', '/usr'],
  ['--ro-bind', '/etc'],
  ['--ro-bind-try', '/bin'],
  ['--ro-bind-try', '/sbin'],
  ['--ro-bind-try', '/lib'],
  ['--ro-bind-try', '/lib32'],
  ['--ro-bind-try', '/lib64'],
  ['--ro-bind-try', '/libx32'],
] as const;

/** PATH inside: the host's standard folders only, never the agent's own. */
const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface SandboxSettings {
  /** The first slot's user ID; slot n runs as `uidBase + n` (and the group of the same number). */
  uidBase: number;
}

/** This host cannot sandbox jobs; the message says what is missing. */
export class SandboxUnavailable extends Error {}

/** The argv that runs `command` as `uid` in a sandbox around `workDir`, and its environment. */
export function sandboxed(opts: {
  command: string;
  workDir: string;
  uid: number;
  env: Record<string, string>;
  devices?: string[];
}): {
  file: string;
  args: string[];
  env: Record<string, string>;
} {
  const args = [
    '--die-with-parent', // the agent's SIGKILL of bwrap takes the whole sandbox with it
    '--new-session', // no terminal to push input into
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'compute-job',
    ...SYSTEM_BINDS.flatMap(([how, dir]) => [how, dir, dir]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    // The job's GPUs, and only them.
    ...(opts.devices ?? []).flatMap((dev) => ['--dev-bind-try', dev, dev]),
    '--perms',
    '1777',
    '--tmpfs',
    '/tmp',
    '--bind',
    opts.workDir,
    SANDBOX_WORK_DIR,
    '--chdir',
    SANDBOX_WORK_DIR,
    '--',
    'setpriv',
    `--reuid=${opts.uid}`,
    `--regid=${opts.uid}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--no-new-privs',
    '--',
    'sh',
    '-c',
    opts.command,
  ];
  return { file: 'bwrap', args, env: { ...opts.env, PATH: SANDBOX_PATH, HOME: '/tmp', TMPDIR: '/tmp' } };
}

/**
 * Throws `SandboxUnavailable` unless a sandbox starts here: Linux, root (to hand each job a user
 * of its own), bubblewrap and setpriv installed, and namespaces the kernel lets us make.
 */
export function assertSandboxWorks(): void {
  if (process.platform !== 'linux')
    throw new SandboxUnavailable(`the job sandbox needs Linux (this is ${process.platform})`);
  if (process.getuid?.() !== 0)
    throw new SandboxUnavailable(
      'the job sandbox needs the agent to run as root, to run each job as a user of its own',
    );
  for (const [tool, pkg] of [
    ['bwrap', 'bubblewrap'],
    ['setpriv', 'util-linux'],
  ]) {
    const probe = spawnSync(tool, ['--version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0)
      throw new SandboxUnavailable(`the job sandbox needs ${tool} (Debian's ${pkg} package), which is not installed`);
  }
  const trial = sandboxed({ command: 'exit 0', workDir: '/tmp', uid: 65534, env: {} });
  const run = spawnSync(trial.file, trial.args, { encoding: 'utf8', env: trial.env, timeout: 10_000 });
  if (run.status !== 0) {
    throw new SandboxUnavailable(
      `the job sandbox does not start on this host: ${(run.stderr || run.error?.message || `exit ${run.status}`).trim()}`,
    );
  }
}

/**
 * Sends `signal` to every process of the sandbox under `rootPid` that runs as the job's user:
 * the command and all it started, but not bubblewrap's own processes, whose end would tear the
 * sandbox down before the command had its grace.
 */
export function signalJobProcesses(rootPid: number, uid: number, signal: NodeJS.Signals): void {
  for (const pid of descendants(rootPid)) {
    if (uidOf(pid) !== uid) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
}

function descendants(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid …": comm may hold any character, so read after its last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const out: number[] = [];
  for (let queue = [rootPid]; queue.length > 0;) {
    const next = children.get(queue.pop()!) ?? [];
    out.push(...next);
    queue.push(...next);
  }
  return out;
}

function uidOf(pid: number): number | undefined {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^Uid:\s+(\d+)/m);
    return line ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}
