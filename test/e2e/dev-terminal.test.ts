// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnvironment } from '../../src/config';
import { freePort } from '../../src/stack/ports';
import { testEnv } from '../support/env';
import { waitFor } from '../support/agents';
import { sleep } from '../support/http';

const ROOT = path.resolve(__dirname, '../..');
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** pid, parent pid and the terminal's foreground process group of every process, from /proc. */
function processes(): Array<{ pid: number; ppid: number; tpgid: number; cmdline: string }> {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      // Fields after the command name, which is in parentheses and may hold spaces.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      return [{ pid: Number(entry), ppid: Number(fields[1]), tpgid: Number(fields[5]), cmdline }];
    } catch {
      return []; // gone meanwhile
    }
  });
}

function descendantsOf(root: number) {
  const all = processes();
  const found = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (!found.has(p.pid) && found.has(p.ppid)) {
        found.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => p.pid !== root && found.has(p.pid));
}

/** For a failure's report: each process's group, terminal group, state and signal masks. */
function signalsOf(procs: Array<{ pid: number; cmdline: string }>): string {
  return procs
    .map((p) => {
      try {
        const stat = fs.readFileSync(`/proc/${p.pid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const status = fs.readFileSync(`/proc/${p.pid}/status`, 'utf8');
        const masks = ['SigBlk', 'SigIgn', 'SigCgt']
          .map((m) => `${m} ${new RegExp(`^${m}:\\s+(\\w+)`, 'm').exec(status)?.[1]}`)
          .join(' ');
        return `  ${p.pid} ppid ${f[1]} pgrp ${f[2]} sid ${f[3]} tpgid ${f[5]} state ${f[0]} ${masks} ${p.cmdline.slice(0, 100)}`;
      } catch {
        return `  ${p.pid} gone`;
      }
    })
    .join('\n');
}

/**
 * For a failure's report: what each thread of a process is doing (state, kernel wait channel and
 * the system call it sits in: 1 write, 7 poll, 202 futex, 232 epoll_wait, with its first
 * argument) and the flags of its standard descriptors (04000 is O_NONBLOCK).
 */
function threadsOf(pid: number): string {
  const read = (file: string) => {
    try {
      return fs.readFileSync(file, 'utf8').trim();
    } catch {
      return '?';
    }
  };
  let threads: string[] = [];
  try {
    threads = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    // Gone meanwhile: the report says so by listing no threads.
  }
  const lines = threads.map((tid) => {
    const dir = `/proc/${pid}/task/${tid}`;
    const stat = read(`${dir}/stat`);
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    const syscall = read(`${dir}/syscall`).split(' ').slice(0, 2).join(' ');
    return `    thread ${tid} ${read(`${dir}/comm`)} state ${state} wchan ${read(`${dir}/wchan`)} syscall ${syscall}`;
  });
  const fds = [0, 1, 2]
    .map((fd) => `fd${fd} ${/^flags:\s+(\d+)/m.exec(read(`/proc/${pid}/fdinfo/${fd}`))?.[1]}`)
    .join(' ');
  const stack = read(`/proc/${pid}/stack`).split('\n').slice(0, 6).join(' | ');
  return [`  threads of ${pid} (${fds}); kernel stack: ${stack}`, ...lines].join('\n');
}

/** The environment `npm run dev` gets here: its own data folder, free ports, none of this shell's services. */
async function devEnvironment(dataDir: string): Promise<NodeJS.ProcessEnv> {
  const env = childEnvironment({
    COMPUTE_DATA_DIR: dataDir,
    COMPUTE_TOOLS_DIR: testEnv().config.toolsDir,
    LOG_LEVEL: 'info',
    DEV_POSTGRES_PORT: String(await freePort()),
    DEV_TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    DEV_MINIO_PORT: String(await freePort()),
    DEV_MINIO_CONSOLE_PORT: String(await freePort()),
    DEV_STRIPE_MOCK_PORT: String(await freePort()),
    DEV_JAEGER_PORT: String(await freePort()),
    DEV_JAEGER_GRPC_PORT: String(await freePort()),
    DEV_OTLP_PORT: String(await freePort()),
    // The worker's Temporal SDK metrics: the default port may be another dev's or the suite's.
    TEMPORAL_METRICS_PORT: String(await freePort()),
    // Chosen by the kernel when the API listens: a port picked free now may be some outgoing
    // connection's by the time the API starts, after the services.
    PORT: '0',
  });
  // The services `npm run dev` starts itself, whatever this shell points at.
  for (const name of [
    'NODE_ENV',
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'S3_ENDPOINT',
    'STRIPE_SECRET_KEY',
    'STRIPE_API_BASE',
    'OTEL_EXPORTER_OTLP_ENDPOINT',
  ])
    delete env[name];
  return env;
}

/**
 * `npm run dev`'s program in a pseudo-terminal (`script` must `exec` it: without SHELL it runs
 * dash, which would take the Ctrl-C itself): its output without colours, a wait on that output
 * with a deadline, and Ctrl-C.
 */
function devInTerminal(env: NodeJS.ProcessEnv) {
  const child = spawn('/usr/bin/script', ['-qfec', 'exec node --import tsx src/main/dev.ts', '/dev/null'], {
    cwd: ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let over = false;
  let signalled = 0;
  const waiters = new Set<() => void>();
  const onOutput = (chunk: Buffer) => {
    output += chunk.toString('utf8').replace(ANSI, '');
    for (const wake of waiters) wake();
  };
  child.stdout!.on('data', onOutput);
  child.stderr!.on('data', onOutput);
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      over = true;
      for (const wake of waiters) wake();
      resolve(code);
    }),
  );
  return {
    child,
    exited,
    output: () => output,
    async printed(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = pattern.exec(output);
        if (found) return found;
        if (over) throw new Error(`dev exited before printing ${pattern}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`dev did not print ${pattern} within ${timeoutMs} ms:\n${output}`);
        let wake!: () => void;
        let timer!: NodeJS.Timeout;
        await new Promise<void>((resolve) => {
          wake = resolve;
          waiters.add(wake);
          timer = setTimeout(resolve, deadline - Date.now());
        });
        waiters.delete(wake);
        clearTimeout(timer);
      }
    },
    /** The exit code, or a failure with the output when dev has not exited within timeoutMs. */
    async exitedWithin(timeoutMs: number): Promise<number | null> {
      let timer!: NodeJS.Timeout;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const procs = descendantsOf(child.pid!);
          const threads = procs.filter((p) => p.cmdline.includes('src/main/dev.ts')).map((p) => threadsOf(p.pid));
          reject(
            new Error(
              `dev did not exit within ${timeoutMs} ms (Ctrl-C went to group ${signalled}):\n${output}\n${signalsOf(procs)}\n${threads.join('\n')}`,
            ),
          );
        }, timeoutMs);
      });
      try {
        return await Promise.race([exited, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    /** SIGINT to the terminal's foreground process group, which dev runs in. */
    ctrlC(): void {
      const dev = descendantsOf(child.pid!).find((p) => p.cmdline.includes('src/main/dev.ts'));
      assert.ok(dev, 'the dev process runs');
      signalled = dev.tpgid;
      process.kill(-dev.tpgid, 'SIGINT');
    },
  };
}

describe('npm run dev in a terminal', () => {
  let dataDir = '';
  let child: ChildProcess | undefined;
  after(() => {
    // Only when the test failed half-way: what it started does not outlive it.
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      for (const p of descendantsOf(child.pid)) process.kill(p.pid, 'SIGKILL');
    }
    if (dataDir) for (const p of processes().filter((p) => p.cmdline.includes(dataDir))) process.kill(p.pid, 'SIGKILL');
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints readable logs, and on Ctrl-C stops the agent, the API and worker, then the services, quietly', async function () {
    this.timeout(180_000);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-dev-'));
    fs.chmodSync(dataDir, 0o755);
    const env = await devEnvironment(dataDir);

    // `script` gives the command a pseudo-terminal, as a developer's shell would. Deadlines below
    // the test's own, so a hang fails with what dev printed rather than a bare timeout.
    const dev = devInTerminal(env);
    child = dev.child;
    await dev.printed(/Ctrl-C stops everything/, 120_000);
    const output = dev.output;
    assert.doesNotMatch(output(), /\{"level":/, 'no JSON log lines on a terminal');
    assert.match(output(), /\] INFO \(agent[^)]*\): agent ready/, 'pretty log lines');

    const before = output().length;
    dev.ctrlC();
    assert.equal(await dev.exitedWithin(45_000), 0, output().slice(before));

    const after = output().slice(before);
    const steps = [
      'stopping the agent',
      'stopping the API and the worker',
      'stopping Temporal, PostgreSQL, MinIO, stripe-mock, Jaeger',
      'stopped',
    ];
    const at = steps.map((step) => after.indexOf(`\n${step}\r\n`));
    assert.ok(
      at.every((i, n) => i >= 0 && (n === 0 || i > at[n - 1])),
      `the steps in order:\n${after}`,
    );
    assert.doesNotMatch(after, /(\n|\\n)\s+at /, 'no stack trace, printed or inside a logged string');
    assert.doesNotMatch(after, /ECONNREFUSED/);
    const troubles = after.split('\n').filter((line) => /\] (WARN|ERROR|FATAL) /.test(line));
    assert.deepEqual(troubles, [], 'nothing went wrong while stopping');
    assert.deepEqual(
      processes()
        .filter((p) => p.cmdline.includes(dataDir))
        .map((p) => p.cmdline),
      [],
      'no postgres, temporal or minio of this data folder is left',
    );
  });

  it('prints the same API key after a restart on the same data folder, and the key works', async function () {
    this.timeout(300_000);
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-dev-restart-'));
    fs.chmodSync(folder, 0o755);
    const runs: Array<ReturnType<typeof devInTerminal>> = [];
    try {
      const env = await devEnvironment(folder);
      const start = async () => {
        const dev = devInTerminal(env);
        runs.push(dev);
        await dev.printed(/Ctrl-C stops everything/, 120_000);
        const key = /^ *API key +(\S+)\r?$/m.exec(dev.output())?.[1];
        const api = /^ *API +(http:\/\/\S+)\/api /m.exec(dev.output())?.[1];
        assert.ok(key && api, dev.output());
        return { dev, key, api };
      };
      const first = await start();
      first.dev.ctrlC();
      assert.equal(await first.dev.exitedWithin(45_000), 0, first.dev.output());

      const second = await start();
      assert.equal(second.key, first.key, 'the same key after the restart');
      const listed = await fetch(`${second.api}/api/compute/jobs/list`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': second.key },
        body: '{}',
      });
      assert.equal(listed.status, 200, await listed.text());
      // The request was traced into the Jaeger dev started, whose query API the banner names.
      const jaeger = /^ *Traces +(http:\/\/\S+)\/api\/traces\/<traceId>/m.exec(second.dev.output())?.[1];
      assert.ok(jaeger, second.dev.output());
      let services: string[] = [];
      await waitFor(
        'the API’s spans in Jaeger',
        async () => {
          await sleep(250);
          const res = await fetch(`${jaeger}/api/services`).catch(() => null);
          services = res?.ok ? (((await res.json()) as { data: string[] | null }).data ?? []) : [];
          return services.includes('compute');
        },
        15_000,
      ).catch((err: Error) => assert.fail(`${err.message}: services ${JSON.stringify(services)}`));
      second.dev.ctrlC();
      assert.equal(await second.dev.exitedWithin(45_000), 0, second.dev.output());
    } finally {
      // Only when the test failed half-way: what it started does not outlive it.
      for (const { child: c } of runs) {
        if (c.pid && c.exitCode === null && c.signalCode === null)
          for (const p of descendantsOf(c.pid)) process.kill(p.pid, 'SIGKILL');
      }
      for (const p of processes().filter((p) => p.cmdline.includes(folder))) process.kill(p.pid, 'SIGKILL');
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
