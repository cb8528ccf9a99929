import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { jobEnvironment } from '../config';
import { sandboxed, signalJobProcesses } from './sandbox';

export interface Exit {
  exitCode: number;
  /** Set when the process was ended by a signal. */
  signal: NodeJS.Signals | null;
  runtimeMs: number;
}

/**
 * A job's command: `sh -c` in its own process group and a fresh folder, every output line handed
 * to `onLine`. Stopping signals the whole group, so nothing the command started survives it.
 * In a sandbox (./sandbox) the group is bubblewrap's: stopping signals the job's own processes
 * first and kills bubblewrap, and with it the whole sandbox, once the grace is over.
 */
export class JobProcess {
  private readonly child: ChildProcess;
  private readonly started = Date.now();
  private killTimer?: NodeJS.Timeout;
  readonly exited: Promise<Exit>;

  private constructor(
    child: ChildProcess,
    onLine: (stream: 'stdout' | 'stderr', line: string) => void,
    private readonly workDir: string,
    private readonly sandboxUid: number | undefined,
    beforeCleanup?: (workDir: string, exit: { stopped: boolean; signal: NodeJS.Signals | null }) => Promise<void>,
  ) {
    this.child = child;
    const streams = (['stdout', 'stderr'] as const).map((name) => {
      const rl = readline.createInterface({ input: child[name]!, crlfDelay: Infinity });
      rl.on('line', (line) => onLine(name, line));
      return new Promise<void>((resolve) => rl.once('close', resolve));
    });
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('error', (err) => {
        onLine('stderr', `[compute-agent] could not start the command: ${err.message}`);
        resolve({ code: 127, signal: null });
      });
      child.once('exit', (code, signal) => {
        // The job is over when its shell is: whatever it left running in its group goes too,
        // which also closes the output pipes those leftovers held.
        clearTimeout(this.killTimer);
        this.signalGroup('SIGKILL');
        resolve({ code, signal });
      });
    });
    this.exited = Promise.all([exit, ...streams]).then(async ([{ code, signal }]) => {
      const runtimeMs = Date.now() - this.started;
      // The folder is still there: the agent collects artifacts before it goes.
      await beforeCleanup?.(this.workDir, { stopped: this.killTimer !== undefined, signal }).catch(() => undefined);
      await fs.rm(this.workDir, { recursive: true, force: true }).catch(() => undefined);
      // A sandboxed command's signal reaches us as bubblewrap's exit code 128 + n.
      const stoppedBy =
        signal ??
        (this.sandboxUid !== undefined && this.killTimer && code !== null && code > 128
          ? signalName(code - 128)
          : null);
      return { exitCode: code ?? 128 + signalNumber(signal), signal: stoppedBy, runtimeMs };
    });
  }

  static async start(opts: {
    command: string;
    /** The job's whole environment beyond PATH, HOME, LANG, TERM and TMPDIR: the agent's own is not passed on. */
    env: Record<string, string>;
    workRoot: string;
    name: string;
    onLine: (stream: 'stdout' | 'stderr', line: string) => void;
    /** Runs the command in a sandbox (./sandbox) as this user, which then owns the work folder. */
    sandbox?: { uid: number; devices?: string[] };
    /** The `cgroup.procs` files of the job's control groups (./job-cgroup), joined before it starts. */
    cgroupProcs?: string[];
    /** Runs after the command and its output are done, before the folder is removed. */
    beforeCleanup?: (workDir: string, exit: { stopped: boolean; signal: NodeJS.Signals | null }) => Promise<void>;
  }): Promise<JobProcess> {
    await fs.mkdir(opts.workRoot, { recursive: true });
    const workDir = await fs.mkdtemp(path.join(opts.workRoot, `${opts.name}-`));
    const env = jobEnvironment(opts.env);
    const run = opts.sandbox
      ? sandboxed({ command: opts.command, workDir, uid: opts.sandbox.uid, env, devices: opts.sandbox.devices })
      : { file: 'sh', args: ['-c', opts.command], env };
    if (opts.sandbox) await fs.chown(workDir, opts.sandbox.uid, opts.sandbox.uid);
    // A shell of ours joins the groups and then becomes the command: nothing of the job runs outside them.
    const [file, args] = opts.cgroupProcs?.length
      ? ['sh', ['-c', JOIN_CGROUPS, 'sh', String(opts.cgroupProcs.length), ...opts.cgroupProcs, run.file, ...run.args]]
      : [run.file, run.args];
    const child = spawn(file, args, {
      cwd: workDir,
      env: run.env,
      detached: true, // its own process group
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new JobProcess(child, opts.onLine, workDir, opts.sandbox?.uid, opts.beforeCleanup);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** SIGTERM to the group, SIGKILL after `graceMs` if it is still there. */
  stop(graceMs: number): void {
    if (this.killTimer || this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (this.sandboxUid !== undefined && this.child.pid) signalJobProcesses(this.child.pid, this.sandboxUid, 'SIGTERM');
    else this.signalGroup('SIGTERM');
    this.killTimer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (!this.child.pid) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // The group is gone.
    }
  }
}

/** `sh -c` script: `$1` files to write our PID to, then the command to exec. */
const JOIN_CGROUPS =
  'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"';

const signalNumber = (signal: NodeJS.Signals | null) => (signal ? os.constants.signals[signal] : 1);
const signalName = (n: number) =>
  (Object.entries(os.constants.signals).find(([, v]) => v === n)?.[0] as NodeJS.Signals | undefined) ?? null;
