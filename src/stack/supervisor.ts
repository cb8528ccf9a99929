import { type ManagedChild, startChild } from './child';

// A process restarted whenever it dies unasked, as `restart: unless-stopped` does in
// docker-compose.yml: the production-shaped stack's servers and replicas, which the fault soak
// kills with SIGKILL.

export interface SupervisedOptions {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  logFile: string;
  /** Waited before a restart, so a process that dies at once does not spin. */
  restartDelayMs?: number;
  log: (msg: string) => void;
}

export interface Supervised {
  name: string;
  /** The current process's pid (a new one after each restart). */
  pid(): number;
  /** Restarts so far. */
  restarts(): number;
  /** Sends `signal` to the current process group; the supervisor restarts it once it is gone. */
  kill(signal?: NodeJS.Signals): void;
  /** Settles only if the process cannot be started at all (spawn failed): for readiness checks. */
  gaveUp: Promise<number | null>;
  /** Stops it for good: SIGTERM, SIGKILL after graceMs. */
  stop(graceMs?: number): Promise<void>;
}

export function supervise(name: string, opts: SupervisedOptions): Supervised {
  let child: ManagedChild;
  let restarts = 0;
  let stopping = false;
  let giveUp: (code: number | null) => void = () => undefined;
  const gaveUp = new Promise<number | null>((resolve) => (giveUp = resolve));
  const start = () => {
    child = startChild({ command: opts.command, args: opts.args, env: opts.env, cwd: opts.cwd, logFile: opts.logFile });
    const mine = child;
    mine.exited.then(
      (code) => {
        if (stopping || mine !== child) return;
        opts.log(`${name} (pid ${mine.pid}) exited (${code ?? 'killed'}); restarting`);
        restarts++;
        setTimeout(() => {
          if (!stopping) start();
        }, opts.restartDelayMs ?? 500);
      },
      (err: unknown) => {
        opts.log(`${name} could not start: ${String(err)}`);
        giveUp(null);
      },
    );
  };
  start();
  return {
    name,
    pid: () => child.pid,
    restarts: () => restarts,
    kill(signal = 'SIGKILL') {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Between a death and its restart.
      }
    },
    gaveUp,
    async stop(graceMs) {
      stopping = true;
      await child.stop(graceMs);
    },
  };
}
