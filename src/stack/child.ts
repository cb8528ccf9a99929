import { childEnvironment } from '../config';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface ManagedChild {
  pid: number;
  /** Resolves with the exit code (null when killed by a signal) once the child has exited. */
  exited: Promise<number | null>;
  /** SIGTERM to the whole process group, SIGKILL after graceMs; resolves when the child has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface ChildOptions {
  command: string;
  args: string[];
  /** Added to the inherited environment of the child. */
  env?: Record<string, string>;
  cwd?: string;
  /** stdout and stderr are appended here. */
  logFile: string;
}

// Process groups still running, killed if this process goes away without stopping them.
const live = new Set<number>();

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

let hooked = false;
function hookParentExit(): void {
  if (hooked) return;
  hooked = true;
  // 'exit' covers process.exit() and a natural end, including mocha's exit.
  process.on('exit', () => {
    for (const pid of live) killGroup(pid, 'SIGKILL');
  });
  // A signal with no other handler ends Node without 'exit': our children sit in their own
  // groups, so Ctrl-C would not reach them. If nobody else handles the signal, clean up and
  // re-raise it so the default behaviour (exit) still happens.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      if (process.listenerCount(sig) > 0) return;
      for (const pid of live) killGroup(pid, 'SIGKILL');
      process.kill(process.pid, sig);
    });
  }
}

/**
 * Spawns a long-running tool detached in its own process group, so that stopping it also
 * stops anything it forked, and a terminal's Ctrl-C does not kill it before we shut down in order.
 */
export function startChild(opts: ChildOptions): ManagedChild {
  fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const fd = fs.openSync(opts.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(opts.command, opts.args, {
      cwd: opts.cwd,
      // The child's own environment: ours plus what the caller adds.
      env: opts.env ? childEnvironment(opts.env) : undefined,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
  } finally {
    fs.closeSync(fd); // The child holds its own copy.
  }
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
  // Spawn errors (e.g. ENOENT) surface through `exited`; do not leave them unhandled here.
  exited.catch(() => undefined);
  const pid = child.pid;
  if (pid === undefined) {
    return { pid: -1, exited, stop: async () => undefined };
  }
  hookParentExit();
  live.add(pid);
  let exitedYet = false;
  void exited
    .catch(() => undefined)
    .finally(() => {
      exitedYet = true;
      live.delete(pid);
    });

  const stop = async (graceMs = 10_000): Promise<void> => {
    if (exitedYet) return;
    killGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), graceMs);
    try {
      await exited.catch(() => undefined);
    } finally {
      clearTimeout(timer);
      // Leftover grandchildren of the group, if any, do not outlive the stop.
      killGroup(pid, 'SIGKILL');
    }
  };
  return { pid, exited, stop };
}
