import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnvironment } from '../src/config';
import { freePort } from '../src/stack/ports';
import { testEnv } from './support/env';

const ROOT = path.resolve(__dirname, '..');
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
  for (let grew = true; grew; ) {
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
    const env = childEnvironment({
      COMPUTE_DATA_DIR: dataDir,
      COMPUTE_TOOLS_DIR: testEnv().config.toolsDir,
      LOG_LEVEL: 'info',
      DEV_POSTGRES_PORT: String(await freePort()),
      DEV_TEMPORAL_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      DEV_MINIO_PORT: String(await freePort()),
      DEV_MINIO_CONSOLE_PORT: String(await freePort()),
      // Chosen by the kernel when the API listens: a port picked free now may be some outgoing
      // connection's by the time the API starts, after the services.
      PORT: '0',
    });
    // The services `npm run dev` starts itself, whatever this shell points at.
    for (const name of ['NODE_ENV', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'S3_ENDPOINT']) delete env[name];

    // `script` gives the command a pseudo-terminal, as a developer's shell would.
    const dev = spawn('/usr/bin/script', ['-qfec', 'exec node --import tsx src/main/dev.ts', '/dev/null'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    child = dev;
    let output = '';
    const waiters: Array<() => void> = [];
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString('utf8').replace(ANSI, '');
      for (const wake of waiters.splice(0)) wake();
    };
    dev.stdout!.on('data', onOutput);
    dev.stderr!.on('data', onOutput);
    const exited = new Promise<number | null>((resolve) => dev.once('close', (code) => resolve(code)));
    const printed = async (pattern: RegExp) => {
      let over = false;
      void exited.then(() => (over = true));
      while (!pattern.test(output)) {
        if (over) throw new Error(`dev exited before printing ${pattern}:\n${output}`);
        await Promise.race([new Promise<void>((wake) => waiters.push(wake)), exited]);
      }
    };

    await printed(/Ctrl-C stops everything/);
    assert.doesNotMatch(output, /\{"level":/, 'no JSON log lines on a terminal');
    assert.match(output, /\] INFO \(agent[^)]*\): agent ready/, 'pretty log lines');

    // Ctrl-C: SIGINT to the terminal's foreground process group, which dev runs in.
    const devProcess = descendantsOf(dev.pid!).find((p) => p.cmdline.includes('src/main/dev.ts'));
    assert.ok(devProcess, 'the dev process runs');
    const before = output.length;
    process.kill(-devProcess.tpgid, 'SIGINT');
    assert.equal(await exited, 0, output.slice(before));

    const after = output.slice(before);
    const steps = ['stopping the agent', 'stopping the API and the worker', 'stopping Temporal, PostgreSQL, MinIO', 'stopped'];
    const at = steps.map((step) => after.indexOf(`\n${step}\r\n`));
    assert.ok(
      at.every((i, n) => i >= 0 && (n === 0 || i > at[n - 1])),
      `the steps in order:\n${after}`,
    );
    assert.doesNotMatch(after, /(\n|\\n)\s+at /, 'no stack trace, printed or inside a logged string');
    assert.doesNotMatch(after, /ECONNREFUSED/);
    assert.doesNotMatch(after, /\] (WARN|ERROR|FATAL) /, 'nothing went wrong while stopping');
    assert.deepEqual(
      processes().filter((p) => p.cmdline.includes(dataDir)).map((p) => p.cmdline),
      [],
      'no postgres, temporal or minio of this data folder is left',
    );
  });
});
